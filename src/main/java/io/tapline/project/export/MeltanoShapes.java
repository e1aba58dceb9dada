package io.tapline.project.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.Conventions;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Meltano shapes the export needs beyond a plain copy of the stored fields: mapping names for
 * mappers made through the API, the mapping that carries their config, namespaces of custom
 * plugins, and an environment's expanded {@code state_id_suffix}.
 */
final class MeltanoShapes {

    private MeltanoShapes() {
    }

    /**
     * The mapping name of every mapper made through the API (one without {@code mappings} of its
     * own): Meltano runs a mapper only through a mapping whose name differs from every plugin name.
     */
    static Map<String, String> mappingNames(List<Plugin> plugins) {
        Set<String> taken = new java.util.HashSet<>();
        plugins.forEach(p -> {
            taken.add(p.name);
            Jsons.readObject(p.extras).path("mappings").forEach(m -> taken.add(m.path("name").asText()));
        });
        Map<String, String> out = new LinkedHashMap<>();
        for (Plugin p : plugins) {
            ObjectNode extras = Jsons.readObject(p.extras);
            if (p.type != PluginType.MAPPERS || extras.has(Conventions.MAPPING_OF) || extras.has("mappings")) {
                continue;
            }
            String name = p.name + "-mapping";
            for (int i = 2; taken.contains(name); i++) {
                name = p.name + "-mapping-" + i;
            }
            taken.add(name);
            out.put(p.name, name);
        }
        return out;
    }

    /**
     * Moves a mapper's config into one mapping, annotated with the mapper's name so that the
     * import gives the same mapper back: {@code mappings: [{name, config, annotations: {tapline: {mapper}}}]}.
     */
    static void asMapping(ObjectNode entry, String mappingName, String mapper) {
        JsonNode config = entry.remove("config");
        ObjectNode mapping = entry.putArray("mappings").addObject();
        mapping.put("name", mappingName);
        mapping.set("config", config == null ? JsonNodeFactory.instance.objectNode() : config);
        mapping.putObject("annotations").putObject(Conventions.ANNOTATION).put("mapper", mapper);
    }

    /** The entry with {@code namespace} right after the name (Meltano's custom plugins need one). */
    static ObjectNode withNamespace(ObjectNode entry, String namespace) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        entry.fields().forEachRemaining(e -> {
            o.set(e.getKey(), e.getValue());
            if (e.getKey().equals("name")) {
                o.put("namespace", namespace);
            }
        });
        return o;
    }

    /**
     * An environment's {@code state_id_suffix} with its {@code ${VAR}} references expanded from the
     * environment's {@code env}, as the import reads it; null when none or not expandable.
     */
    static String environmentSuffix(ObjectNode environment) {
        if (environment == null || !environment.path("state_id_suffix").isTextual()) {
            return null;
        }
        String value = Conventions.expandSuffix(environment.get("state_id_suffix").asText(), name -> {
            JsonNode v = environment.path("env").get(name);
            return v == null || !v.isValueNode() ? null : v.asText();
        }).value();
        return value == null || value.isEmpty() ? null : value;
    }
}
