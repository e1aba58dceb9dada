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
        return new RunResponse(r.id, r.pipelineName, r.stateId, r.trigger.name(), r.scheduledFor, r.status.name(),
                r.attempt, r.retryOf, r.fullRefresh, Jsons.readStrings(r.fullRefreshStreams), r.stateStrategy,
                r.stateCommitPolicy, r.queuedAt, r.startedAt, r.endedAt, duration, r.lastHeartbeatAt,
                r.ownerInstance, r.cancelRequestedAt, r.failedComponent, exitCodes, r.errorSummary,
                Jsons.readStrings(r.warnings), counts.has("streams") ? counts.get("streams") : Jsons.MAPPER.createObjectNode(),
                r.recordsTotal, r.bytesTotal, states == null ? null : states.asLong(), r.stateLines,
                r.invalidStateLines, lenient(r.stateBefore), lenient(r.stateAfter), Jsons.read(r.stages),
                r.createdBy, r.cancelledBy);
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
