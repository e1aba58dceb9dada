package io.tapline.plugin.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A plugin's overlay in one environment as the API shows it; sensitive values read {@code "********"}.
 *
 * @param environment environment name
 * @param config deep-merged over the plugin's config in that environment
 * @param env variables put over the plugin's env
 * @param metadata deep-merged over the plugin's metadata
 * @param select replaces the plugin's select patterns, or null when the overlay gives none
 * @param extras other keys of the Meltano entry
 * @param version version number, also the ETag of the overlay
 * @param updatedAt last change (UTC)
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record EnvironmentOverlayResponse(String environment, ObjectNode config, Map<String, String> env,
                                         ObjectNode metadata, List<String> select, ObjectNode extras, long version,
                                         OffsetDateTime updatedAt) {
}
