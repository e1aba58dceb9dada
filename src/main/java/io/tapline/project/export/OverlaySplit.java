package io.tapline.project.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.Plugin;
import io.tapline.project.SensitiveNames;
import io.tapline.project.meltano.Conventions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a stored plugin back into Meltano's base and the imported environment's overlay. An import
 * stores a plugin with that environment's overlay merged in and keeps, in the import's document,
 * every environment's overlay as written and the base values of the keys the imported one sets
 * ({@code KeptDocument}, {@link Conventions#OVERLAID_BASE}). The export writes:
 * <ul>
 *   <li>as the plugin: what is stored, except that each key the overlay sets has its base value
 *   again (or is left out, when the base had none);</li>
 *   <li>as the imported environment's overlay of the plugin: those keys with the stored values
 *   (what runs in that environment now, also after a change through the API); select when the
 *   overlay gives one; the overlay's other keys as written.</li>
 * </ul>
 * Importing the export for that environment merges them into what is stored, and the other
 * environments keep their own overlays, so each environment keeps its own config. A key of the
 * overlay that was removed from the plugin since is left out of both.
 */
final class OverlaySplit {

    /**
     * One plugin split.
     *
     * @param base the plugin as Meltano's base entry is written (a detached copy)
     * @param overlay the overlay entry of the imported environment ({@code name} first)
     */
    record Split(Plugin base, ObjectNode overlay) {
    }

    private OverlaySplit() {
    }

    /**
     * The split of every plugin the imported environment overlays, by {@code <type>/<name>}.
     *
     * @param document the import's kept document
     * @param environment the imported environment's entry in the export (its overlays as written)
     */
    static Map<String, Split> split(ObjectNode document, ObjectNode environment, List<Plugin> plugins) {
        Map<String, Split> out = new LinkedHashMap<>();
        JsonNode bases = document.path(Conventions.OVERLAID_BASE);
        if (!bases.isObject() || environment == null) {
            return out;
        }
        for (Plugin p : plugins) {
            String key = p.type.id() + "/" + p.name;
            if (bases.get(key) instanceof ObjectNode base) {
                ObjectNode written = written(environment, p);
                out.put(key, split(p, base, written == null ? JsonNodeFactory.instance.objectNode() : written));
            }
        }
        return out;
    }

    /** The imported environment's overlay of the plugin as written, or null. */
    private static ObjectNode written(ObjectNode environment, Plugin p) {
        for (JsonNode o : environment.path("config").path("plugins").path(p.type.id())) {
            if (o instanceof ObjectNode entry && p.name.equals(entry.path("name").asText(null))) {
                return entry;
            }
        }
        return null;
    }

    /**
     * Puts a plugin's overlay into the environment entry in place of the one written there, its
     * sensitive values as references.
     */
    static void write(ObjectNode environment, Plugin p, ObjectNode overlay) {
        List<String> sensitive = Jsons.readStrings(p.sensitive);
        if (overlay.get("config") instanceof ObjectNode c) {
            overlay.set("config", SecretReferences.inConfig(p.name, c, sensitive));
        }
        if (overlay.get("env") instanceof ObjectNode env) {
            env.fields().forEachRemaining(f -> {
                if (sensitive.contains(f.getKey()) && !SensitiveNames.isReference(f.getValue().asText())) {
                    f.setValue(JsonNodeFactory.instance.textNode("${" + f.getKey() + "}"));
                }
            });
        }
        ObjectNode config = environment.get("config") instanceof ObjectNode c ? c : environment.putObject("config");
        ObjectNode byType = config.get("plugins") instanceof ObjectNode t ? t : config.putObject("plugins");
        ArrayNode list = byType.get(p.type.id()) instanceof ArrayNode l ? l : byType.putArray(p.type.id());
        for (int i = 0; i < list.size(); i++) {
            if (p.name.equals(list.get(i).path("name").asText(null))) {
                list.set(i, overlay);
                return;
            }
        }
        list.add(overlay);
    }

    private static Split split(Plugin p, ObjectNode base, ObjectNode written) {
        ObjectNode overlay = JsonNodeFactory.instance.objectNode();
        overlay.put("name", p.name);
        Plugin view = p.detachedCopy();
        ObjectNode absent = base.path("absent") instanceof ObjectNode a ? a : JsonNodeFactory.instance.objectNode();
        view.config = Jsons.write(part(Jsons.readObject(p.config), base.path("config"), absent.path("config"),
                overlay, "config"));
        view.metadata = Jsons.write(part(Jsons.readObject(p.metadata), base.path("metadata"), absent.path("metadata"),
                overlay, "metadata"));
        if (base.get("select") instanceof ArrayNode select) {
            overlay.set("select", Jsons.read(p.selectPatterns));
            view.selectPatterns = Jsons.write(select);
        }
        view.env = Jsons.write(part(Jsons.readObject(p.env), base.path("env"), absent.path("env"), overlay, "env"));
        written.fields().forEachRemaining(f -> {
            if (!List.of("name", "config", "metadata", "select", "env").contains(f.getKey())) {
                overlay.set(f.getKey(), f.getValue());
            }
        });
        return new Split(view, overlay);
    }

    /**
     * The stored object with the overlaid keys back at their base values (absent ones removed);
     * the stored values of those keys go to {@code overlay.<field>}.
     */
    private static ObjectNode part(ObjectNode stored, JsonNode base, JsonNode absent, ObjectNode overlay, String field) {
        List<String> keys = new ArrayList<>();
        base.fieldNames().forEachRemaining(keys::add);
        absent.forEach(k -> keys.add(k.asText()));
        if (keys.isEmpty() && !base.isObject() && !absent.isArray()) {
            return stored;
        }
        ObjectNode own = JsonNodeFactory.instance.objectNode();
        ObjectNode out = stored.deepCopy();
        for (String k : keys) {
            if (stored.has(k)) {
                own.set(k, stored.get(k));
            }
            if (base.has(k)) {
                out.set(k, base.get(k).deepCopy());
            } else {
                out.remove(k);
            }
        }
        if (base.isObject() || absent.isArray()) {
            overlay.set(field, own);
        }
        return out;
    }

}
