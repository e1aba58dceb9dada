package io.tapline.invocation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginType;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Everything a run needs, read once in a transaction when it starts, so that editing the pipeline
 * or its plugins during the run changes nothing for it.
 *
 * @param runId the run
 * @param pipeline pipeline name
 * @param stateId Meltano state ID
 * @param extractor the tap
 * @param mappers the mappers, in order
 * @param loader the target
 * @param transform the transform step, or null
 * @param transformArgs arguments of the transform command
 * @param fullRefresh ignore bookmarks
 * @param fullRefreshStreams streams whose bookmarks are dropped
 * @param strategy auto, merge or overwrite
 * @param onSuccess true for the ON_SUCCESS commit policy
 * @param timeoutSeconds run timeout, or null
 * @param env pipeline environment variables
 * @param environment Meltano environment name
 * @param meltano how to run it through {@code meltano run} (pipelines with {@code executor: meltano}), or null
 * @param extractorId the extractor's plugin id (the key of its catalog cache entry)
 * @param refreshCatalog the run asked for a fresh catalog discovery ({@code refreshCatalog: true})
 */
public record RunPlan(UUID runId, String pipeline, String stateId, Component extractor, List<Component> mappers,
                      Component loader, Component transform, List<String> transformArgs, boolean fullRefresh,
                      List<String> fullRefreshStreams, String strategy, boolean onSuccess, Integer timeoutSeconds,
                      Map<String, String> env, String environment, MeltanoCli meltano, Long extractorId,
                      boolean refreshCatalog) {

    /**
     * The Meltano-CLI executor's part of a plan (see {@code io.tapline.run.exec.MeltanoExecutor}).
     *
     * @param projectDir the Meltano project directory (holding meltano.yml)
     * @param job the job to run ({@code meltano run <job>}), or null to run the plugins as blocks
     * @param stateBackendDir root of the file state backend for this pipeline, or null for the configured one
     * @param stateIdSuffix the pipeline's state ID suffix, passed as {@code --state-id-suffix}, or null
     */
    public record MeltanoCli(String projectDir, String job, String stateBackendDir, String stateIdSuffix) {
    }

    /**
     * One plugin as the run uses it.
     *
     * @param name plugin name
     * @param type plugin type (extractors, loaders, ...)
     * @param executable command name or absolute path
     * @param args extra arguments
     * @param capabilities declared capabilities
     * @param config config with references unresolved
     * @param sensitive names of sensitive settings
     * @param select select patterns
     * @param metadata metadata rules
     * @param catalog stored catalog, or null
     * @param env plugin environment variables
     * @param pipUrl Meltano's {@code pip_url}, or null: only a plugin with one is installed by the
     *     run ({@link RunInstalls})
     * @param capabilitiesSource where {@code capabilities} came from ({@link CapabilitySource} id),
     *     or null while none were given and the plugin was not asked: then {@code capabilities} is
     *     empty until the plugin is asked ({@link #unknownCapabilities})
     * @param namespace Meltano {@code namespace} as stored, or null ({@link PluginEnv} derives Meltano's default)
     * @param variant Meltano {@code variant} as stored, or null
     * @param inheritFrom Meltano {@code inherit_from}: the parent plugin's name, or null
     */
    public record Component(String name, String type, String executable, List<String> args, List<String> capabilities,
                            ObjectNode config, List<String> sensitive, List<String> select, ObjectNode metadata,
                            ObjectNode catalog, Map<String, String> env, String pipUrl, String capabilitiesSource,
                            String namespace, String variant, String inheritFrom) {

        /** Snapshot of a plugin entity. */
        public static Component of(Plugin p) {
            return new Component(p.name, p.type.id(), p.executable, Jsons.readStrings(p.args),
                    Jsons.readStrings(p.capabilities), Jsons.readObject(p.config), Jsons.readStrings(p.sensitive),
                    Jsons.readStrings(p.selectPatterns), Jsons.readObject(p.metadata),
                    p.catalog == null ? null : Jsons.readObject(p.catalog), Jsons.readStringMap(p.env), p.pipUrl,
                    p.capabilitiesSource, p.namespace, p.variant, p.inheritFrom);
        }

        /**
         * True for a Singer plugin (extractor, loader, mapper) whose capabilities were not given and
         * that was not asked yet: it is asked ({@code --about --format=json}) before it is started.
         */
        public boolean unknownCapabilities() {
            return capabilitiesSource == null && CapabilitySource.asked(PluginType.fromPath(type));
        }

        /** This component with other capabilities and their source. */
        public Component withCapabilities(List<String> caps, String source) {
            return new Component(name, type, executable, args, List.copyOf(caps), config, sensitive, select, metadata,
                    catalog, env, pipUrl, source, namespace, variant, inheritFrom);
        }

        /** This component started as {@code exe} (a resolved executable). */
        public Component withExecutable(String exe) {
            return new Component(name, type, exe, args, capabilities, config, sensitive, select, metadata, catalog, env,
                    pipUrl, capabilitiesSource, namespace, variant, inheritFrom);
        }

        /** True when the plugin declares the capability. */
        public boolean can(String capability) {
            return capabilities.contains(capability);
        }
    }

    /**
     * The plan's processes by their log prefix, in start-up order of the pipeline: {@code extractor},
     * {@code mapper:<name>}..., {@code loader}, then {@code transform} when there is one.
     */
    public Map<String, Component> processes() {
        Map<String, Component> all = new java.util.LinkedHashMap<>();
        all.put("extractor", extractor);
        mappers.forEach(m -> all.put("mapper:" + m.name(), m));
        all.put("loader", loader);
        if (transform != null) {
            all.put("transform", transform);
        }
        return all;
    }

    /**
     * Whether each target state line is a complete write (meltano-state.md §3 table): {@code auto}
     * without any full refresh and {@code overwrite} replace; {@code merge}, and {@code auto} with a
     * full refresh (of all or some streams), merge.
     */
    public boolean completeWrites() {
        return switch (strategy) {
            case "overwrite" -> true;
            case "merge" -> false;
            default -> !fullRefresh && fullRefreshStreams.isEmpty();
        };
    }
}
