package io.tapline.plugin.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /api/v1/plugins/{type}} and {@code PUT /api/v1/plugins/{type}/{name}}.
 * Only {@code executable} is required (and {@code name} on POST); with {@code inheritFrom} it
 * defaults to the parent plugin's, with {@code pipUrl} to the plugin's name (Meltano's defaults).
 *
 * @param name plugin name (Meltano plugin-name rules); on PUT it may be omitted or must equal the path
 * @param executable command name on PATH or absolute path; never run through a shell
 * @param args extra arguments given before the Singer arguments
 * @param capabilities Singer/Meltano capabilities: catalog, discover, state, properties, about, ...;
 *     when not given (absent or null), the plugin is asked ({@code --about --format=json}) before
 *     its first use, and Meltano's conventional set for its type applies when it cannot answer
 * @param config the plugin config (a JSON object); values may be {@code ${env:NAME}} or {@code ${secret:NAME}} references
 * @param sensitive setting names (dotted paths into config allowed) whose values are write-only
 * @param select Meltano select patterns, e.g. {@code users.*}, {@code !users.password}
 * @param metadata Meltano metadata rules, e.g. {@code {"users": {"replication-method": "INCREMENTAL"}}}
 * @param catalog a stored Singer catalog used instead of discovery, or null
 * @param env environment variables for the process
 * @param namespace Meltano {@code namespace}, kept for the meltano.yml export
 * @param variant Meltano {@code variant}, kept for the export
 * @param pipUrl Meltano {@code pip_url} (also accepted under that name): requirement specifiers the service installs into the plugin's virtual environment (no pip options but {@code -e}); also exported. With a pip URL, {@code executable} defaults to the plugin's name
 * @param inheritFrom Meltano {@code inherit_from} (also accepted under that name): the plugin this one derives from
 * @param extras other Meltano keys of the plugin ({@code settings}, {@code commands}, ...), kept for the export
 */
public record PluginRequest(
        @Schema(description = "Plugin name; required on POST, on PUT omitted or equal to the path", example = "tap-csv")
        String name,
        @Schema(description = "Command on PATH or absolute path, started directly (never through a shell); required"
                + " unless inheritFrom or pipUrl gives a default (the parent's, or the plugin's name)", example = "tap-csv")
        String executable, List<String> args, List<String> capabilities,
                            ObjectNode config, List<String> sensitive, List<String> select, ObjectNode metadata,
                            JsonNode catalog, Map<String, String> env, String namespace, String variant,
                            @JsonAlias("pip_url") String pipUrl, @JsonAlias("inherit_from") String inheritFrom,
                            ObjectNode extras) {

    /** A request without the Meltano-only fields (namespace, variant, pip_url, inherit_from, extras). */
    public PluginRequest(String name, String executable, List<String> args, List<String> capabilities,
                         ObjectNode config, List<String> sensitive, List<String> select, ObjectNode metadata,
                         JsonNode catalog, Map<String, String> env) {
        this(name, executable, args, capabilities, config, sensitive, select, metadata, catalog, env, null, null, null,
                null, null);
    }

    /** This request with other capabilities (null: not given). */
    public PluginRequest withCapabilities(List<String> caps) {
        return new PluginRequest(name, executable, args, caps, config, sensitive, select, metadata, catalog, env,
                namespace, variant, pipUrl, inheritFrom, extras);
    }
}
