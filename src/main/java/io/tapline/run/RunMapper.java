package io.tapline.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.run.api.RunResponse;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

/** Renders {@link Run} rows as API responses. Stateless. */
public final class RunMapper {

    private RunMapper() {
    }

    /** The API view of a run. */
    public static RunResponse toResponse(Run r) {
        Map<String, Integer> exitCodes = new LinkedHashMap<>();
        Jsons.readObject(r.exitCodes).fields().forEachRemaining(e -> exitCodes.put(e.getKey(), e.getValue().asInt()));
        ObjectNode counts = Jsons.readObject(r.streamCounts);
        Long duration = null;
        if (r.startedAt != null) {
            OffsetDateTime end = r.endedAt != null ? r.endedAt : OffsetDateTime.now(ZoneOffset.UTC);
            duration = Duration.between(r.startedAt, end).toMillis();
        }
        JsonNode states = counts.get("states");
        // state warnings (issue 21): structured in stateWarnings, their messages also in warnings
        JsonNode stateWarnings = r.stateWarnings == null ? Jsons.MAPPER.createArrayNode() : Jsons.read(r.stateWarnings);
        java.util.List<String> warnings = new java.util.ArrayList<>(Jsons.readStrings(r.warnings));
        stateWarnings.forEach(w -> warnings.add(w.path("message").asText()));
        return new RunResponse(r.id, r.pipelineName, r.stateId, r.trigger.name(), r.scheduledFor, r.status.name(),
                r.attempt, r.retryOf, r.fullRefresh, Jsons.readStrings(r.fullRefreshStreams), r.stateStrategy,
                r.stateCommitPolicy, r.queuedAt, r.startedAt, r.endedAt, duration, r.lastHeartbeatAt,
                r.ownerInstance, r.cancelRequestedAt, r.failedComponent, exitCodes, r.errorSummary,
                warnings, counts.has("streams") ? counts.get("streams") : Jsons.MAPPER.createObjectNode(),
                r.recordsTotal, r.bytesTotal, states == null ? null : states.asLong(), r.stateLines,
                r.invalidStateLines, lenient(r.stateBefore), lenient(r.stateAfter), Jsons.read(r.stages), failure(r),
                stateWarnings, r.createdBy, r.cancelledBy, r.catalogSource);
    }

    /** The typed failure, for runs that have one. */
    private static RunResponse.Failure failure(Run r) {
        if (r.failureType == null) {
            return null;
        }
        return new RunResponse.Failure(r.failureType, r.failedComponent, Boolean.TRUE.equals(r.failureRetryable),
                r.errorSummary);
    }

    /** Stored state text may hold Python's NaN/Infinity; shown as parsed where possible, else as text. */
    private static JsonNode lenient(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Jsons.LENIENT.readTree(text);
        } catch (Exception e) {
            return Jsons.MAPPER.getNodeFactory().textNode(text);
        }
    }
}
