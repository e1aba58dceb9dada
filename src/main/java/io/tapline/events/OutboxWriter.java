package io.tapline.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.UuidV7;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.events.delivery.Delivery;
import io.tapline.events.delivery.DeliveryRepository;
import io.tapline.events.delivery.Sink;
import io.tapline.events.openlineage.LineageEvents;
import io.tapline.events.webhook.Globs;
import io.tapline.events.webhook.Webhook;
import io.tapline.events.webhook.WebhookRepository;
import io.tapline.run.RunEnded;
import io.tapline.run.RunRepository;
import io.tapline.schedule.PipelinePaused;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes the outbox: observes {@link RunEnded} and {@link PipelinePaused} synchronously, inside
 * the transaction that made the change, and records in that same transaction the event rows, the
 * run's state warnings ({@link StateWarnings}) and one delivery per matching webhook and, for
 * run events with {@code tapline.openlineage.url} set, the OpenLineage START and terminal events.
 * Nothing here sends anything: {@link io.tapline.events.delivery.DeliveryWorker} does, after commit.
 * A problem that is not the database's (bad stored JSON, a body that does not build) is logged and
 * costs only that event, never the run's terminal write.
 */
@ApplicationScoped
public class OutboxWriter {

    private static final Logger LOG = Logger.getLogger(OutboxWriter.class);

    private final EventRepository events;
    private final WebhookRepository webhooks;
    private final DeliveryRepository deliveries;
    private final TaplineConfig config;
    private final EventMetrics metrics;
    private final Clock clock;
    private final StateWarnings rules;
    private final RunRepository runs;

    public OutboxWriter(EventRepository events, WebhookRepository webhooks, DeliveryRepository deliveries,
                        TaplineConfig config, EventMetrics metrics, Clock clock, RunRepository runs) {
        this.events = events;
        this.runs = runs;
        this.webhooks = webhooks;
        this.deliveries = deliveries;
        this.config = config;
        this.metrics = metrics;
        this.clock = clock;
        TaplineConfig.Events e = config.events();
        this.rules = new StateWarnings(e.notAdvancingRuns(), e.stateLargeBytes(), e.stateGrowthFactor(),
                e.stateGrowthMinBytes());
    }

    /** Records run.succeeded / run.failed / run.cancelled and the run's state warnings. */
    void onRunEnded(@Observes RunEnded ended) {
        RunFacts run = events.runFacts(ended.runId()).orElse(null);
        if (run == null) {
            return;
        }
        EventType type = switch (run.status()) {
            case "SUCCEEDED" -> EventType.RUN_SUCCEEDED;
            case "FAILED" -> EventType.RUN_FAILED;
            case "CANCELLED" -> EventType.RUN_CANCELLED;
            default -> null;
        };
        if (type == null) {
            return;
        }
        List<StateWarning> warnings = List.of();
        if (run.pipelineId() != null) {
            List<Boolean> recent = "SUCCEEDED".equals(run.status()) && run.recordsTotal() > 0
                    ? events.recentProductiveUnchanged(run.pipelineId(), run.id(), rules.threshold(run) + 1) : List.of();
            warnings = rules.of(run, recent);
        }
        if (!warnings.isEmpty()) {
            List<Map<String, Object>> stored = warnings.stream().map(w -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", w.type().id());
                m.put("message", w.message());
                return m;
            }).toList();
            runs.recordStateWarnings(run.id(), Jsons.write(stored));
            warnings.forEach(w -> metrics.stateWarning(run.pipelineName(), w.type()));
        }
        record(type, run.pipelineId(), run.pipelineName(), run, Map.of());
        for (StateWarning w : warnings) {
            if (w.newEvent()) {
                Map<String, Object> data = new LinkedHashMap<>(w.details());
                data.put("message", w.message());
                record(w.type(), run.pipelineId(), run.pipelineName(), run, data);
            }
        }
    }

    /** Records pipeline.paused. */
    void onPaused(@Observes PipelinePaused paused) {
        RunFacts run = paused.runId() == null ? null : events.runFacts(paused.runId()).orElse(null);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("reason", paused.reason());
        data.put("consecutiveFailures", paused.failures());
        record(EventType.PIPELINE_PAUSED, paused.pipelineId(), paused.pipelineName(), run, data);
    }

    /**
     * Records one event and its deliveries in the current transaction.
     *
     * @param run the run it is about, or null
     * @param data type-specific payload fields
     */
    void record(EventType type, Long pipelineId, String pipeline, RunFacts run, Map<String, Object> data) {
        UUID id = UuidV7.next();
        OffsetDateTime now = OffsetDateTime.now(clock);
        ObjectNode payload;
        try {
            payload = EventPayloads.envelope(id, type, now, pipeline, run, data);
        } catch (RuntimeException e) {
            LOG.errorf(e, "Event %s of pipeline '%s' could not be built and was not recorded", type.id(), pipeline);
            return;
        }
        Event event = new Event();
        event.id = id;
        event.type = type.id();
        event.pipelineId = pipelineId;
        event.pipelineName = pipeline;
        event.runId = run == null ? null : run.id();
        event.occurredAt = now;
        event.payload = Jsons.write(payload);
        events.persist(event);
        events.flush();
        for (Webhook w : webhooks.all()) {
            if (subscribed(w, type, pipeline)) {
                String body = "slack".equals(w.format) ? EventPayloads.slack(payload) : event.payload;
                deliveries.persist(delivery(id, w.id, Sink.WEBHOOK, body, now));
            }
        }
        if (type.isRunEnd() && run != null && config.openlineage().url().isPresent()) {
            try {
                for (String body : LineageEvents.of(run, config.openlineage().namespace())) {
                    deliveries.persist(delivery(id, null, Sink.OPENLINEAGE, body, now));
                }
            } catch (RuntimeException e) {
                LOG.errorf(e, "OpenLineage events of run %s could not be built", run.id());
            }
        }
        metrics.recorded(type);
    }

    private static boolean subscribed(Webhook w, EventType type, String pipeline) {
        try {
            return Jsons.readStrings(w.eventTypes).contains(type.id())
                    && Jsons.readStrings(w.pipelines).stream().anyMatch(g -> Globs.matches(g, pipeline));
        } catch (RuntimeException e) {
            LOG.warnf("Webhook %s has unreadable subscriptions: %s", w.id, e.getMessage());
            return false;
        }
    }

    private Delivery delivery(UUID eventId, UUID webhookId, Sink sink, String body, OffsetDateTime now) {
        Delivery d = new Delivery();
        d.id = UuidV7.next();
        d.eventId = eventId;
        d.webhookId = webhookId;
        d.sink = sink;
        d.status = "PENDING";
        d.body = body;
        d.attempts = 0;
        d.createdAt = now;
        d.nextAttemptAt = now;
        d.giveUpAt = now.plus(config.events().giveUpAfter());
        return d;
    }
}
