package io.tapline.invocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A utility's or transformer's settings as environment variables, named as Meltano 4.2.2 names them
 * (utilities and transformers get no config file; {@code PluginSettingsService.as_env} over
 * {@code ProjectPlugin.env_prefixes(for_writing=True)}): each setting under every prefix of the
 * plugin, in order its name, its namespace, its parent's name and namespace ({@code inherit_from}),
 * then {@code MELTANO_<VERB>} ({@code TRANSFORM} for transformers, {@code UTILIZE} for utilities),
 * each {@code <PREFIX>_<SETTING>} upper-cased with every character other than A-Z and 0-9 written as
 * {@code _} ({@code to_env_var}); a nested setting ({@code a: {b: 1}}, Meltano's {@code a.b}) is
 * {@code <PREFIX>_A_B}. Strings are passed as they are, other values as JSON. The namespace is the
 * stored one, else Meltano's default, the name with {@code -} written as {@code _} (for a Hub
 * plugin Meltano takes the Hub definition's, which is that for the Hub's plugins). Context
 * variables: {@code MELTANO_<TYPE>_NAME}, {@code MELTANO_<TYPE>_NAMESPACE},
 * {@code MELTANO_<TYPE>_VARIANT} (Meltano's {@code info_env}; the variant is {@code default}, Meltano's
 * fallback, when none is stored), {@code MELTANO_<TYPE>_EXECUTABLE}, {@code MELTANO_ENVIRONMENT},
 * {@code MELTANO_PROJECT_ROOT} (the run directory) and {@code MELTANO_RUN_ID}. Pure.
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
        env.put("MELTANO_" + type + "_NAMESPACE", namespace(plugin.name(), plugin.namespace()));
        env.put("MELTANO_" + type + "_VARIANT", plugin.variant() == null || plugin.variant().isBlank() ? "default"
                : plugin.variant());
        env.put("MELTANO_" + type + "_EXECUTABLE", plugin.executable());
        if (environment != null) {
            env.put("MELTANO_ENVIRONMENT", environment);
        }
        env.put("MELTANO_PROJECT_ROOT", projectRoot);
        env.put("MELTANO_RUN_ID", runId);
        Map<String, String> settings = new LinkedHashMap<>();
        flatten("", config, settings);
        for (String prefix : prefixes(plugin, verb)) {
            settings.forEach((k, v) -> env.put(name(prefix + "_" + k), v));
        }
        return env;
    }

    /** Meltano's namespace of a plugin: the stored one, else its name with {@code -} as {@code _}. */
    static String namespace(String name, String stored) {
        return stored == null || stored.isBlank() ? name.replace('-', '_') : stored;
    }

    /**
     * The prefixes a setting is written under, without repeats (Meltano's {@code uniques_in}): the
     * plugin's name and namespace, its parent's name and (derived) namespace, {@code MELTANO_<VERB>}.
     */
    static Set<String> prefixes(RunPlan.Component plugin, String verb) {
        Set<String> out = new LinkedHashSet<>();
        out.add(name(plugin.name()));
        out.add(name(namespace(plugin.name(), plugin.namespace())));
        if (plugin.inheritFrom() != null) {
            out.add(name(plugin.inheritFrom()));
            out.add(name(namespace(plugin.inheritFrom(), null)));
        }
        out.add("MELTANO_" + verb);
        return out;
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
