package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.catalog.api.StreamsResponse;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.CatalogRules;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The streams of a catalog as {@link StreamsResponse} lists them, after {@link CatalogRules#apply}
 * (the code the run uses), so {@code selected} is exactly what the tap gets. Pure.
 */
public final class StreamsView {

    private StreamsView() {
    }

    /**
     * The streams of {@code catalog} with {@code select} and {@code metadata} applied. The rules
     * treat each stream on its own, so they are applied to one stream at a time: a copy of one
     * stream is held at once, not of the whole catalog (a catalog of 20,000 streams is a tree of
     * hundreds of MB).
     */
    public static List<StreamsResponse.Stream> of(ObjectNode catalog, List<String> select, ObjectNode metadata) {
        List<StreamsResponse.Stream> out = new ArrayList<>();
        JsonNode streams = catalog.path("streams");
        if (!streams.isArray()) {
            streams = CatalogRules.apply(catalog, select, metadata).path("streams"); // no rule applies
        }
        for (JsonNode original : streams) {
            if (!original.isObject()) {
                continue;
            }
            ObjectNode one = Jsons.MAPPER.createObjectNode();
            one.putArray("streams").add(original);
            JsonNode s = CatalogRules.apply(one, select, metadata).path("streams").path(0);
            JsonNode md = s.path("metadata");
            JsonNode top = metadata(md, List.of());
            String id = s.hasNonNull("tap_stream_id") ? s.get("tap_stream_id").asText() : s.path("stream").asText();
            List<String> keys = strings(top.has("table-key-properties") ? top.get("table-key-properties")
                    : s.get("key_properties"));
            List<String> repKeys = strings(top.has("valid-replication-keys") ? top.get("valid-replication-keys")
                    : s.get("replication_key"));
            String forced = text(top.get("forced-replication-method"));
            String method = text(top.has("replication-method") ? top.get("replication-method")
                    : s.get("replication_method"));
            if (method == null) {
                method = forced;
            }
            List<String> methods = forced != null ? List.of(forced)
                    : repKeys.isEmpty() ? List.of("FULL_TABLE") : List.of("FULL_TABLE", "INCREMENTAL");
            List<StreamsResponse.Property> props = new ArrayList<>();
            JsonNode schemaProps = s.path("schema").path("properties");
            for (Iterator<String> it = schemaProps.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                JsonNode pm = metadata(md, List.of("properties", name));
                JsonNode type = schemaProps.get(name).get("type");
                props.add(new StreamsResponse.Property(name, type == null ? null
                        : type.isTextual() ? type.asText() : Jsons.MAPPER.convertValue(type, Object.class),
                        pm.path("inclusion").asText("available"), pm.path("selected").asBoolean(false)));
            }
            out.add(new StreamsResponse.Stream(id, s.path("stream").asText(id), top.path("selected").asBoolean(false),
                    keys, repKeys, method, methods, props));
        }
        return out;
    }

    private static JsonNode metadata(JsonNode md, List<String> breadcrumb) {
        for (JsonNode e : md) {
            JsonNode bc = e.path("breadcrumb");
            if (bc.isArray() && bc.size() == breadcrumb.size()) {
                boolean same = true;
                for (int i = 0; i < breadcrumb.size(); i++) {
                    same &= breadcrumb.get(i).equals(bc.get(i).asText());
                }
                if (same) {
                    return e.path("metadata");
                }
            }
        }
        return Jsons.MAPPER.createObjectNode();
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n == null || n.isNull()) {
            return out;
        }
        if (n.isTextual()) {
            if (!n.asText().isEmpty()) {
                out.add(n.asText());
            }
            return out;
        }
        n.forEach(x -> out.add(x.asText()));
        return out;
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() || n.asText().isEmpty() ? null : n.asText();
    }
}
