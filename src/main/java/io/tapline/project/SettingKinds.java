package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code settings:} a meltano.yml gives a custom plugin so that {@code meltano config list}
 * knows every value (Meltano 4.2.2 calls an undeclared one "possibly unsupported"): one entry per
 * top-level config key, {@code {name, kind}}, with Meltano's kind for the stored value
 * ({@code SettingKind}: {@code string}, {@code integer}, {@code decimal}, {@code boolean},
 * {@code array}, {@code object}) and {@code kind: password} for every sensitive setting. What a
 * plugin's own description knows better (kinds, labels) is given in its declared settings, which
 * win: this only adds what is missing. The import treats an entry exactly as this class derives it
 * as implied, so exporting and importing again changes nothing.
 */
public final class SettingKinds {

    private SettingKinds() {
    }

    /**
     * Meltano's kind of a stored value: {@code integer}, {@code decimal}, {@code boolean},
     * {@code array}, {@code object}, else {@code string} (also for null and for {@code ${VAR}} references).
     */
    public static String kindOf(JsonNode value) {
        if (value == null || value.isNull() || value.isTextual()) {
            return "string";
        }
        if (value.isIntegralNumber()) {
            return "integer";
        }
        if (value.isNumber()) {
            return "decimal";
        }
        if (value.isBoolean()) {
            return "boolean";
        }
        return value.isArray() ? "array" : value.isObject() ? "object" : "string";
    }

    /**
     * The declared settings with an entry added for each sensitive name ({@code kind: password}; an
     * existing entry without either marker gets {@code sensitive: true}) and, when {@code custom},
     * for each config key not declared ({@code {name, kind}}). Null when there are none and none
     * were declared.
     *
     * @param declared the plugin's {@code settings} as written, or null
     * @param config the config as exported
     * @param sensitive sensitive setting names
     * @param custom true for a plugin Meltano does not find on Meltano Hub
     */
    public static JsonNode settings(JsonNode declared, ObjectNode config, List<String> sensitive, boolean custom) {
        ArrayNode out = declared instanceof ArrayNode a ? a.deepCopy() : JsonNodeFactory.instance.arrayNode();
        for (String name : sensitive) {
            ObjectNode found = find(out, name);
            if (found == null) {
                // The value written is always a ${VAR} reference (a string): kind password fits it.
                out.addObject().put("name", name).put("kind", "password");
            } else if (!found.path("kind").asText("").equals("password") && !found.path("sensitive").asBoolean(false)) {
                found.put("sensitive", true);
            }
        }
        if (custom) {
            config.fields().forEachRemaining(f -> {
                if (find(out, f.getKey()) == null) {
                    out.addObject().put("name", f.getKey()).put("kind", kindOf(f.getValue()));
                }
            });
        }
        return out.isEmpty() && !(declared instanceof ArrayNode) ? null : out;
    }

    /**
     * The settings without the entries that {@link #settings} adds by itself: {@code {name, kind:
     * password}} or {@code {name, sensitive: true}} of a sensitive name, and {@code {name, kind}}
     * of a config key whose value has that kind. Null when none are left.
     */
    public static ArrayNode withoutImplied(JsonNode settings, List<String> sensitive, JsonNode config) {
        if (!(settings instanceof ArrayNode list)) {
            return null;
        }
        Set<String> secret = new HashSet<>(sensitive);
        ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        list.forEach(s -> {
            String name = s.path("name").asText();
            boolean implied = s.size() == 2 && s.has("name") && (secret.contains(name)
                    ? s.path("sensitive").asBoolean(false) || "password".equals(s.path("kind").asText())
                    : config != null && config.has(name) && kindOf(config.get(name)).equals(s.path("kind").asText(null)));
            if (!implied) {
                kept.add(s);
            }
        });
        return kept.isEmpty() ? null : kept;
    }

    private static ObjectNode find(ArrayNode settings, String name) {
        for (JsonNode s : settings) {
            if (s instanceof ObjectNode so && name.equals(so.path("name").asText(null))) {
                return so;
            }
        }
        return null;
    }
}
