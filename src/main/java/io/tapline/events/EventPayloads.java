package io.tapline.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;

import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

/**
 * The JSON bodies of events (docs/events.md): the {@code json} webhook body, which is also the
 * stored payload, and the {@code slack} body ({@code {"text": ...}}, for Slack incoming webhooks
 * and compatible chats). Stateless.
 */
public final class EventPayloads {

    /** Payload schema version, sent as {@code version}. */
    public static final int VERSION = 1;

    private EventPayloads() {
    }

    /**
     * The common envelope: {@code {"id", "type", "version", "occurredAt", "pipeline", "run"?, "data"}}.
     *
     * @param run the run the event is about, or null
     * @param data type-specific fields (may be empty)
     */
    public static ObjectNode envelope(UUID id, EventType type, OffsetDateTime at, String pipeline, RunFacts run,
                                      Map<String, Object> data) {
        ObjectNode o = Jsons.MAPPER.createObjectNode();
        o.put("id", id.toString());
        o.put("type", type.id());
        o.put("version", VERSION);
        o.put("occurredAt", at.toString());
        o.put("pipeline", pipeline);
        if (run != null) {
            o.set("run", run(run));
        }
        o.set("data", Jsons.MAPPER.valueToTree(data));
        return o;
    }

    /** The run part: id, status, trigger, attempt, stateId, times, records, failure (when failed). */
    static ObjectNode run(RunFacts r) {
        ObjectNode o = Jsons.MAPPER.createObjectNode();
        o.put("id", r.id().toString());
        o.put("status", r.status());
        o.put("trigger", r.trigger());
        o.put("attempt", r.attempt());
        o.put("stateId", r.stateId());
        o.put("queuedAt", text(r.queuedAt()));
        o.put("startedAt", text(r.startedAt()));
        o.put("endedAt", text(r.endedAt()));
        o.put("recordsTotal", r.recordsTotal());
        if ("FAILED".equals(r.status())) {
            ObjectNode f = o.putObject("failure");
            f.put("component", r.failedComponent());
            f.put("origin", "service".equals(r.failedComponent()) || r.failedComponent() == null ? "service" : "connector");
            f.put("reason", r.errorSummary());
        } else if ("CANCELLED".equals(r.status())) {
            o.put("reason", r.errorSummary());
        }
        return o;
    }

    /** A Slack-compatible body for a payload made by {@link #envelope}: {@code {"text": "..."}}. */
    public static String slack(JsonNode payload) {
        String type = payload.path("type").asText();
        String pipeline = payload.path("pipeline").asText();
        JsonNode run = payload.path("run");
        String runId = run.path("id").asText("");
        String text = switch (type) {
            case "run.succeeded" -> ":white_check_mark: Pipeline *" + pipeline + "*: run " + runId + " succeeded ("
                    + run.path("recordsTotal").asLong() + " records)";
            case "run.failed" -> ":x: Pipeline *" + pipeline + "*: run " + runId + " failed in the "
                    + run.path("failure").path("component").asText("service") + ": "
                    + run.path("failure").path("reason").asText("");
            case "run.cancelled" -> ":no_entry_sign: Pipeline *" + pipeline + "*: run " + runId + " was cancelled: "
                    + run.path("reason").asText("");
            case "pipeline.paused" -> ":pause_button: Pipeline *" + pipeline + "* paused its schedule: "
                    + payload.path("data").path("reason").asText("");
            default -> ":warning: Pipeline *" + pipeline + "*: " + payload.path("data").path("message").asText(type);
        };
        ObjectNode o = Jsons.MAPPER.createObjectNode();
        o.put("text", text);
        return Jsons.write(o);
    }

    private static String text(OffsetDateTime t) {
        return t == null ? null : t.toString();
    }
}
