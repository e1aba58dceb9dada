package io.tapline.audit.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.OffsetDateTime;

/**
 * An audit event as the API shows it.
 *
 * @param id event id
 * @param at when (UTC)
 * @param actor who: the token's principal name, "anonymous" with authentication off, "system"
 * @param action {@code <targetType>.<verb>}: plugin.create|update|delete, pipeline.create|update|delete,
 *     state.set|merge|copy|move|clear|clear-all|rollback|bookmark|import, run.trigger|cancel
 * @param targetType plugin, pipeline, state or run
 * @param target {@code <type>/<name>} for plugins, the pipeline name, the state ID, or the run id
 * @param details a JSON object summarising the change (field and setting names, versions, run ids; never setting values)
 * @param requestId the request's {@code X-Request-Id}, or null
 */
public record AuditEventResponse(long id, OffsetDateTime at, String actor, String action, String targetType,
                                 String target, JsonNode details, String requestId) {
}
