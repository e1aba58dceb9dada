package io.tapline.events.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A recorded event.
 *
 * @param id event id (UUIDv7)
 * @param type event type, e.g. {@code run.failed}
 * @param pipeline pipeline name
 * @param runId the run it is about, when any
 * @param occurredAt when it was recorded (UTC)
 * @param payload the body a {@code json} webhook receives (docs/events.md)
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record EventResponse(UUID id, String type, String pipeline, UUID runId, OffsetDateTime occurredAt,
                            JsonNode payload) {
}
