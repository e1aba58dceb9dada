package io.tapline.invocation;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link RunPreparation} resolved for a run before its log opens: each plugin's config with
 * references resolved and secrets decrypted, the environment of each process, and the values the
 * run log masks.
 *
 * @param extractor the extractor's config, or null (executor {@code meltano})
 * @param mappers the mappers' configs, in order
 * @param loader the loader's config, or null
 * @param transform the transform plugin's config, or null
 * @param env environment per plugin name; key {@code ""} holds the pipeline's own variables
 * @param inherited the variables of the service's environment passed on ({@code tapline.runner.inherit-env})
 * @param secrets resolved secret and sensitive values, masked in the run log
 */
public record PreparedRun(ObjectNode extractor, List<ObjectNode> mappers, ObjectNode loader, ObjectNode transform,
                   Map<String, Map<String, String>> env, Map<String, String> inherited, List<String> secrets) {

    /** The environment of a plugin's process: inherited variables, then the plugin's, then the pipeline's. */
    public Map<String, String> env(String plugin) {
        Map<String, String> e = new LinkedHashMap<>(inherited);
        e.putAll(env.getOrDefault(plugin, Map.of()));
        e.putAll(env.getOrDefault("", Map.of()));
        return e;
    }

    /** The pipeline's own variables, resolved. */
    public Map<String, String> pipelineEnv() {
        return env.getOrDefault("", Map.of());
    }
}
