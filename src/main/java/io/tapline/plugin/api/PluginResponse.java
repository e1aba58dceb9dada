package io.tapline.plugin.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A plugin as the API shows it. Sensitive config values and env values read {@code "********"}.
 *
 * @param type plugin type: extractors, loaders, mappers, transformers or utilities
 * @param name plugin name
 * @param executable command name or absolute path
 * @param args extra arguments
 * @param capabilities declared capabilities
 * @param config config with sensitive values masked
 * @param sensitive names of write-only settings
 * @param select select patterns
 * @param metadata metadata rules
 * @param catalog stored catalog (omitted in lists)
 * @param hasCatalog whether a catalog is stored
 * @param env environment variables, sensitive ones masked
 * @param version version number, also the ETag
 * @param createdAt creation time (UTC)
 * @param updatedAt last change (UTC)
 * @param namespace Meltano {@code namespace}, or null
 * @param variant Meltano {@code variant}, or null
 * @param pipUrl Meltano {@code pip_url}, or null
 * @param inheritFrom Meltano {@code inherit_from}, or null
 * @param extras other Meltano keys kept for the meltano.yml export
 * @param warnings what would make a run of this plugin fail on the replica that answered (for
 *     example an executable not found on its {@code PATH}); empty when nothing was found
 * @param install whether the pip_url is installed on the replica that answers, and its version; null
 *     without a pip_url ({@link io.tapline.plugin.install.PluginInstaller#state})
 * @param capabilitiesSource where {@code capabilities} came from: {@code project} (the imported
 *     meltano.yml), {@code api} (a request), {@code about} (the plugin's own {@code --about
 *     --format=json}), {@code default} (Meltano's conventional set for the type, the plugin could
 *     not answer: see {@code warnings}); null while none were given and the plugin was not asked
 *     yet (it is asked before its first run, discovery or test)
 * @param aboutAt when the plugin was asked {@code --about --format=json} (UTC), or null
 * @param environments the plugin's overlay in each Meltano environment, by environment name
 *     (sensitive values masked); a pipeline of that environment runs the plugin with it
 *     ({@code /api/v1/plugins/{type}/{name}/environments/{environment}})
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record PluginResponse(String type, String name, String executable, List<String> args,
                             List<String> capabilities, ObjectNode config, List<String> sensitive,
                             List<String> select, ObjectNode metadata, JsonNode catalog, boolean hasCatalog,
                             Map<String, String> env, long version, OffsetDateTime createdAt,
                             OffsetDateTime updatedAt, String namespace, String variant, String pipUrl,
                             String inheritFrom, ObjectNode extras, List<String> warnings,
                             io.tapline.plugin.install.api.InstallState install, String capabilitiesSource,
                             OffsetDateTime aboutAt, Map<String, EnvironmentOverlayResponse> environments) {

    /** This response with the install state of the replica that answers. */
    public PluginResponse withInstall(io.tapline.plugin.install.api.InstallState state) {
        return new PluginResponse(type, name, executable, args, capabilities, config, sensitive, select, metadata,
                catalog, hasCatalog, env, version, createdAt, updatedAt, namespace, variant, pipUrl, inheritFrom,
                extras, warnings, state, capabilitiesSource, aboutAt, environments);
    }

    /** This response with the plugin's overlays per environment. */
    public PluginResponse withEnvironments(Map<String, EnvironmentOverlayResponse> overlays) {
        return new PluginResponse(type, name, executable, args, capabilities, config, sensitive, select, metadata,
                catalog, hasCatalog, env, version, createdAt, updatedAt, namespace, variant, pipUrl, inheritFrom,
                extras, warnings, install, capabilitiesSource, aboutAt, overlays);
    }
}
