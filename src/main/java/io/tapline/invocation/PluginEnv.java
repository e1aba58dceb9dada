package io.tapline.invocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A utility's or transformer's settings as environment variables, named as Meltano names them
 * (utilities and transformers get no config file): {@code <PLUGIN_NAME>_<SETTING>} and
 * {@code MELTANO_<VERB>_<SETTING>} ({@code TRANSFORM} for transformers, {@code UTILIZE} for
 * utilities), upper-cased with every character other than A-Z and 0-9 written as {@code _}; a
 * nested setting ({@code a: {b: 1}}, Meltano's {@code a.b}) is {@code <PLUGIN>_A_B}. Strings are
 * passed as they are, other values as JSON. Context variables: {@code MELTANO_<TYPE>_NAME},
 * {@code MELTANO_<TYPE>_EXECUTABLE}, {@code MELTANO_ENVIRONMENT}, {@code MELTANO_PROJECT_ROOT} (the
 * run directory) and {@code MELTANO_RUN_ID}. Pure.
 */
public final class PluginEnv {

    private PluginEnv() {
    }

    /**
     * The variables of a plugin run as a step.
     *
     * @param plugin the plugin
     * @param config its config, resolved and decrypted
     * @param environment the pipeline's Meltano environment, or null
     * @param projectRoot the run's working directory
     * @param runId the run id
     */
    public static Map<String, String> of(RunPlan.Component plugin, ObjectNode config, String environment, String projectRoot,
                                  String runId) {
        String type = "transformers".equals(plugin.type()) ? "TRANSFORMER" : "UTILITY";
        String verb = "transformers".equals(plugin.type()) ? "TRANSFORM" : "UTILIZE";
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MELTANO_" + type + "_NAME", plugin.name());
        env.put("MELTANO_" + type + "_EXECUTABLE", plugin.executable());
        if (environment != null) {
            env.put("MELTANO_ENVIRONMENT", environment);
        }
        env.put("MELTANO_PROJECT_ROOT", projectRoot);
        env.put("MELTANO_RUN_ID", runId);
        Map<String, String> settings = new LinkedHashMap<>();
        flatten("", config, settings);
        settings.forEach((k, v) -> env.put(name(plugin.name() + "_" + k), v));
        settings.forEach((k, v) -> env.put(name("MELTANO_" + verb + "_" + k), v));
        return env;
    }

    /** Upper case, every character other than A-Z, 0-9 as {@code _}: Meltano's env var names. */
    static String name(String s) {
        return s.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    private static void flatten(String prefix, JsonNode node, Map<String, String> into) {
        if (node == null) {
            return;
        }
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            String key = prefix.isEmpty() ? f.getKey() : prefix + "_" + f.getKey();
            JsonNode v = f.getValue();
            if (v.isObject() && !v.isEmpty()) {
                flatten(key, v, into);
            } else if (!v.isNull()) {
                into.put(key, v.isTextual() ? v.asText() : Jsons.write(v));
            }
        }
    }
}
