package io.tapline.project.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.MeltanoDocument;

import java.util.List;
import java.util.Map;

/**
 * A meltano.yml as Tapline will hold it: the plugins with inheritance resolved and each
 * environment's overlay of them apart, the pipelines made from {@code schedules:} and
 * {@code jobs:} for one environment or for all of them, the keys Tapline does not support, and the rest of the document (secrets replaced
 * by references) that the export gives back.
 *
 * @param environment the environment the project was read for (with {@code allEnvironments}, the
 *     default one, whose pipelines keep the schedule and job names)
 * @param defaultEnvironment {@code default_environment}, or null
 * @param environments names of {@code environments:}, in order
 * @param plugins plugins, in document order (types in the order extractors, loaders, mappers, transformers, utilities)
 * @param pipelines pipelines, schedules first, then unscheduled jobs
 * @param unsupported keys Tapline does not act on, with the reason
 * @param document the parts that are neither plugins nor schedules nor jobs, sanitised
 * @param meltano the document as written, typed: every environment with its overlays, every job with
 *     its tasks
 * @param allEnvironments true when pipelines were made for every environment ({@code environment=*})
 */
public record ProjectModel(String environment, String defaultEnvironment, List<String> environments,
                           List<PluginDef> plugins, List<PipelineDef> pipelines, List<Unsupported> unsupported,
                           ObjectNode document, MeltanoDocument meltano, boolean allEnvironments) {

    /**
     * A plugin as it will be stored.
     *
     * @param type plugin type
     * @param name plugin name
     * @param path YAML path of its entry, e.g. {@code plugins.extractors[2]}
     * @param executable command name or absolute path
     * @param capabilities capabilities, or null when neither the plugin nor a parent lists them and it
     *     has no namespace (a Hub plugin: it is asked for them before its first use)
     * @param config the base config, without any environment's overlay ({@code ${VAR}} references kept)
     * @param sensitive setting names with {@code kind: password} or {@code sensitive: true}
     * @param select select patterns
     * @param metadata metadata rules
     * @param env environment variables
     * @param namespace {@code namespace}, or null
     * @param variant {@code variant}, or null
     * @param pipUrl {@code pip_url}, or null
     * @param inheritFrom {@code inherit_from}, or null
     * @param extras every other Meltano key, as written ({@code annotations} without Tapline's)
     * @param args arguments after the executable ({@code annotations.tapline.args}, Tapline's
     *     export; or the parent's), or null when the document gives none (the stored ones are kept)
     * @param overlays the plugin's overlay in each environment that gives one (with what it inherits
     *     from its parent's overlay there), by environment name in document order
     */
    public record PluginDef(PluginType type, String name, String path, String executable, List<String> capabilities,
                            ObjectNode config, List<String> sensitive, List<String> select, ObjectNode metadata,
                            Map<String, String> env, String namespace, String variant, String pipUrl,
                            String inheritFrom, ObjectNode extras, List<String> args, Map<String, Overlay> overlays) {
    }

    /**
     * A plugin's overlay in one environment, as it will be stored ({@code plugin_environment}).
     *
     * @param path YAML path of the entry, e.g. {@code environments[1].config.plugins.extractors[0]}
     * @param config deep-merged over the plugin's config in that environment
     * @param env variables put over the plugin's env
     * @param metadata deep-merged over the plugin's metadata
     * @param select replaces the plugin's select patterns, or null
     * @param extras the entry's other keys, as written
     */
    public record Overlay(String path, ObjectNode config, Map<String, String> env, ObjectNode metadata,
                          List<String> select, ObjectNode extras) {
    }

    /**
     * A pipeline as it will be stored.
     *
     * @param name pipeline name (the schedule's or the job's name)
     * @param path YAML path of the schedule or job
     * @param extractor extractor name
     * @param mappers mapper names
     * @param loader loader name
     * @param transform transform plugin name, or null
     * @param transformArgs transform arguments
     * @param environment environment
     * @param stateIdSuffix state ID suffix (jobs: the environment's {@code state_id_suffix}), or null
     * @param stateId explicit state ID (extract-load schedules: the schedule name), or null to derive
     * @param interval schedule interval
     * @param timezone IANA zone, or null (UTC)
     * @param env environment variables (the environment's, then the schedule's)
     * @param meltanoJob the job the pipeline runs, or null
     * @param enabled false when the schedule is paused ({@code annotations.tapline.paused: true},
     *     Tapline's export), true for {@code paused: false}; null when the document does not say
     *     (the stored pause is kept)
     */
    public record PipelineDef(String name, String path, String extractor, List<String> mappers, String loader,
                              String transform, List<String> transformArgs, String environment,
                              String stateIdSuffix, String stateId, String interval, String timezone,
                              Map<String, String> env, String meltanoJob, Boolean enabled) {

        /** The state ID it runs under: {@code stateId}, else the {@code meltano run} rule. */
        public String effectiveStateId() {
            return stateId != null ? stateId
                    : io.tapline.pipeline.StateIds.derive(environment, extractor, loader, stateIdSuffix);
        }
    }

    /**
     * A key Tapline does not act on.
     *
     * @param path YAML path
     * @param reason why, and what is done with it
     */
    public record Unsupported(String path, String reason) {
    }
}
