package io.tapline.plugin.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * Body of {@code PUT /api/v1/plugins/{type}/{name}/environments/{environment}}: the plugin's
 * overlay in that environment, as meltano.yml's {@code environments[].config.plugins.<type>[]}
 * entry gives it. A field left out overlays nothing. A sensitive value (a name in the plugin's
 * {@code sensitive}) sent as {@code "********"} keeps the value stored in this overlay.
 *
 * @param config deep-merged over the plugin's config (objects member by member, other values replaced)
 * @param env variables put over the plugin's env
 * @param metadata deep-merged over the plugin's metadata rules
 * @param select replaces the plugin's select patterns; null: the plugin's apply
 * @param extras other keys of the Meltano entry, kept for the meltano.yml export
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record EnvironmentOverlayRequest(ObjectNode config, Map<String, String> env, ObjectNode metadata,
                                        List<String> select, ObjectNode extras) {
}
