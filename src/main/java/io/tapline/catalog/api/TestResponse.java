package io.tapline.catalog.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Result of {@code POST /api/v1/plugins/{type}/{name}:test}, as {@code meltano config <plugin> test}
 * reports it: an extractor passes at its first RECORD (then it is stopped); a loader passes when
 * its executable starts ({@code --about} when it has the {@code about} capability).
 *
 * @param plugin {@code <type>/<name>}
 * @param ok whether the test passed
 * @param message what happened; on a failure the connector's last stderr line (masked)
 * @param exitCode the connector's exit code when it exited by itself, else null
 * @param durationMs how long the test took, in milliseconds
 * @param about the connector's {@code --about --format=json} output, for a loader with the {@code about} capability
 */
@RegisterForReflection
public record TestResponse(String plugin, boolean ok, String message, Integer exitCode, long durationMs,
                           JsonNode about) {
}
