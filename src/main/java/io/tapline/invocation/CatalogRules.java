package io.tapline.invocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Applies an extractor's Meltano {@code select} patterns and {@code metadata} rules to a Singer
 * catalog, as Meltano does before it passes {@code --catalog}:
 * <ul>
 *   <li>{@code select}: patterns {@code <stream>.<property>} with shell wildcards ({@code *},
 *   {@code ?}, {@code [..]}); a leading {@code !} excludes. A stream is selected when an include
 *   pattern matches it and no exclude pattern {@code !<stream>.*} does; a property is selected
 *   when an include pattern matches {@code stream.property} and no exclude pattern does.
 *   Properties with {@code inclusion: automatic} stay selected, {@code inclusion: unsupported}
 *   stay unselected. No patterns means {@code *.*}.</li>
 *   <li>{@code metadata}: {@code {"<stream pattern>": {"<key>": value, "<property>": {"<key>":
 *   value}}}}: scalar values set stream metadata (e.g. {@code replication-method},
 *   {@code replication-key}); object values set that property's metadata.</li>
 *   <li>As Meltano 4.2.2's {@code MetadataExecutor} ({@code meltano/core/plugin/singer/catalog.py}):
 *   every stream-level rule is also written on the stream object itself with its key underscored
 *   ({@code selected}, {@code replication_method}, {@code replication_key}, ...), the legacy keys
 *   that classic singer-python taps read, so a discovered {@code replication_method: ""} is
 *   replaced; a stream or top-level property without a metadata entry gets one with
 *   {@code inclusion: automatic}; and {@code selected: true} is never set where the inclusion is
 *   {@code unsupported}.</li>
 * </ul>
 * The input catalog is never modified.
 */
public final class CatalogRules {

    private CatalogRules() {
    }

    /**
     * Returns a copy of {@code catalog} with {@code selected} metadata set on every stream and
     * property, and the metadata rules applied.
     *
     * @param catalog a Singer catalog {@code {"streams": [...]}}
     * @param select Meltano select patterns
     * @param metadata Meltano metadata rules
     */
    public static ObjectNode apply(ObjectNode catalog, List<String> select, ObjectNode metadata) {
        ObjectNode out = catalog.deepCopy();
        List<Rule> includes = new ArrayList<>();
        List<Rule> excludes = new ArrayList<>();
        for (String s : select.isEmpty() ? List.of("*.*") : select) {
            boolean negated = s.startsWith("!");
            Rule r = Rule.parse(negated ? s.substring(1) : s);
            (negated ? excludes : includes).add(r);
        }
        JsonNode streams = out.get("streams");
        if (streams == null || !streams.isArray()) {
            return out;
        }
        for (JsonNode streamNode : streams) {
            if (!(streamNode instanceof ObjectNode stream)) {
                continue;
            }
            String id = stream.hasNonNull("tap_stream_id") ? stream.get("tap_stream_id").asText()
                    : stream.path("stream").asText();
            ArrayNode md = stream.has("metadata") && stream.get("metadata").isArray()
                    ? (ArrayNode) stream.get("metadata") : stream.putArray("metadata");
            boolean streamSelected = includes.stream().anyMatch(r -> r.stream.matcher(id).matches())
                    && excludes.stream().noneMatch(r -> r.stream.matcher(id).matches() && r.matchesAllProperties);
            ObjectNode streamMeta = entry(md, List.of());
            streamMeta.put("selected", streamSelected);
            legacy(stream, "selected", stream.booleanNode(streamSelected));
            JsonNode props = stream.path("schema").path("properties");
            if (props.isObject()) {
                for (Iterator<String> it = props.fieldNames(); it.hasNext(); ) {
                    String prop = it.next();
                    boolean known = find(md, List.of("properties", prop)) != null;
                    ObjectNode pm = entry(md, List.of("properties", prop));
                    String inclusion = pm.path("inclusion").asText("");
                    if (!known) {
                        pm.put("inclusion", "automatic"); // Meltano's ensure_metadata; selected by the patterns below
                    }
                    boolean sel;
                    if ("automatic".equals(inclusion)) {
                        sel = streamSelected;
                    } else if ("unsupported".equals(inclusion)) {
                        sel = false;
                    } else {
                        sel = streamSelected
                                && includes.stream().anyMatch(r -> r.matches(id, prop))
                                && excludes.stream().noneMatch(r -> r.matches(id, prop));
                    }
                    pm.put("selected", sel);
                }
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> rule = it.next();
                if (!glob(rule.getKey()).matcher(id).matches() || !rule.getValue().isObject()) {
                    continue;
                }
                rule.getValue().fields().forEachRemaining(kv -> {
                    if (kv.getValue().isObject()) {
                        ObjectNode pm = entry(md, List.of("properties", kv.getKey()));
                        kv.getValue().fields().forEachRemaining(p -> pm.set(p.getKey(), p.getValue().deepCopy()));
                    } else if (!(kv.getKey().equals("selected") && kv.getValue().asBoolean(false)
                            && "unsupported".equals(streamMeta.path("inclusion").asText()))) {
                        streamMeta.set(kv.getKey(), kv.getValue().deepCopy());
                        legacy(stream, kv.getKey().replace('-', '_'), kv.getValue());
                    }
                });
            }
        }
        return out;
    }

    /**
     * Writes {@code Jsons.write(apply(catalog, select, metadata))} to {@code out} (UTF-8) without the
     * copy of the whole catalog: the rules treat each stream on its own, so each stream is copied,
     * ruled and written in turn (a catalog of 20,000 streams is a tree of hundreds of MB; issue 31).
     * {@code out} is flushed, not closed.
     */
    public static void writeApplied(ObjectNode catalog, List<String> select, ObjectNode metadata,
                                    java.io.OutputStream out) throws java.io.IOException {
        JsonNode streams = catalog.get("streams");
        com.fasterxml.jackson.databind.ObjectWriter writer = Jsons.MAPPER.writer()
                .without(com.fasterxml.jackson.databind.SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
        try (com.fasterxml.jackson.core.JsonGenerator g = Jsons.MAPPER.createGenerator(out)
                .disable(com.fasterxml.jackson.core.JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
            if (streams == null || !streams.isArray()) {
                writer.writeValue(g, apply(catalog, select, metadata));
                return;
            }
            g.writeStartObject();
            for (Map.Entry<String, JsonNode> field : catalog.properties()) {
                g.writeFieldName(field.getKey());
                if (!field.getKey().equals("streams")) {
                    writer.writeValue(g, field.getValue());
                    continue;
                }
                g.writeStartArray();
                for (JsonNode stream : field.getValue()) {
                    ObjectNode one = Jsons.MAPPER.createObjectNode();
                    one.putArray("streams").add(stream);
                    writer.writeValue(g, apply(one, select, metadata).get("streams").get(0));
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
    }

    /**
     * Sets a legacy stream-level key on the stream object itself (Meltano: "Legacy catalogs have
     * underscorized keys on the streams themselves"); {@code selected: true} is not set on a
     * stream whose own {@code inclusion} is {@code unsupported}.
     */
    private static void legacy(ObjectNode stream, String key, JsonNode value) {
        if (key.equals("selected") && value.asBoolean(false) && "unsupported".equals(stream.path("inclusion").asText())) {
            return;
        }
        stream.set(key, value.deepCopy());
    }

    /** The metadata object of {@code breadcrumb}, or null when the catalog has none. */
    private static ObjectNode find(ArrayNode md, List<String> breadcrumb) {
        for (JsonNode e : md) {
            JsonNode bc = e.get("breadcrumb");
            if (bc != null && bc.isArray() && bc.size() == breadcrumb.size()) {
                boolean same = true;
                for (int i = 0; i < breadcrumb.size(); i++) {
                    same &= breadcrumb.get(i).equals(bc.get(i).asText());
                }
                if (same && e.get("metadata") instanceof ObjectNode m) {
                    return m;
                }
            }
        }
        return null;
    }

    /**
     * The metadata object of {@code breadcrumb}; created when missing, for the stream with
     * {@code inclusion: automatic} as Meltano's {@code ensure_metadata} does.
     */
    private static ObjectNode entry(ArrayNode md, List<String> breadcrumb) {
        ObjectNode found = find(md, breadcrumb);
        if (found != null) {
            return found;
        }
        ObjectNode e = md.addObject();
        ArrayNode bc = e.putArray("breadcrumb");
        breadcrumb.forEach(bc::add);
        ObjectNode m = e.putObject("metadata");
        if (breadcrumb.isEmpty()) {
            m.put("inclusion", "automatic");
        }
        return m;
    }

    /** A shell-style wildcard pattern ({@code fnmatch}) as a regex. */
    static Pattern glob(String pattern) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                case '[' -> {
                    int end = pattern.indexOf(']', i + 1);
                    if (end < 0) {
                        re.append("\\[");
                    } else {
                        String set = pattern.substring(i + 1, end);
                        if (set.startsWith("!")) {
                            set = "^" + set.substring(1);
                        }
                        re.append('[').append(set.replace("\\", "\\\\")).append(']');
                        i = end;
                    }
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    private record Rule(Pattern stream, Pattern property, boolean matchesAllProperties) {
        static Rule parse(String s) {
            int dot = s.lastIndexOf('.');
            String stream = dot < 0 ? s : s.substring(0, dot);
            String prop = dot < 0 ? "*" : s.substring(dot + 1);
            return new Rule(glob(stream), glob(prop), prop.equals("*"));
        }

        boolean matches(String streamId, String prop) {
            return stream.matcher(streamId).matches() && property.matcher(prop).matches();
        }
    }

    /** Parses stored JSON text into a catalog object, or null. */
    public static ObjectNode parse(String text) {
        JsonNode n = Jsons.read(text);
        return n instanceof ObjectNode o ? o : null;
    }
}
