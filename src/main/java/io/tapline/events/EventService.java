package io.tapline.events;

import io.tapline.audit.AuditService;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.json.Jsons;
import io.tapline.events.api.DeliveryResponse;
import io.tapline.events.api.EventResponse;
import io.tapline.events.api.StateChecksRequest;
import io.tapline.events.delivery.Delivery;
import io.tapline.events.delivery.DeliveryRepository;
import io.tapline.events.delivery.DeliveryViews;
import io.tapline.events.webhook.WebhookService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Reading the outbox (events and their deliveries) and a pipeline's state-check settings.
 */
@ApplicationScoped
@Transactional
public class EventService {

    /** Bounds of a pipeline's not-advancing threshold. */
    public static final int MIN_RUNS = 1;
    public static final int MAX_RUNS = 100;

    private final EventRepository events;
    private final DeliveryRepository deliveries;
    private final TaplineConfig config;
    private final AuditService audit;

    public EventService(EventRepository events, DeliveryRepository deliveries, TaplineConfig config,
                        AuditService audit) {
        this.events = events;
        this.deliveries = deliveries;
        this.config = config;
        this.audit = audit;
    }

    /**
     * Events newest first.
     *
     * @param pipeline exact pipeline name, or null for all
     * @param type event type id, or null for all
     * @throws DomainException 400 for an unknown type or a bad cursor
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Page<EventResponse> list(String pipeline, String type, String cursor, int limit) {
        if (type != null && EventType.fromId(type).isEmpty()) {
            throw InvalidInputException.field("type", "is not an event type (docs/events.md lists them)");
        }
        UUID before = cursor == null || cursor.isBlank() ? null : WebhookService.cursorId(cursor);
        return Page.of(events.list(pipeline, type, before, limit + 1), limit, e -> e.id.toString(),
                EventService::toResponse);
    }

    /** @throws DomainException 404 */
    @Transactional(Transactional.TxType.SUPPORTS)
    public EventResponse get(UUID id) {
        return toResponse(find(id));
    }

    /** The deliveries of one event (webhooks and OpenLineage), oldest first. @throws DomainException 404 */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<DeliveryResponse> deliveries(UUID id) {
        find(id);
        List<Delivery> rows = deliveries.ofEvent(id);
        List<io.tapline.events.delivery.DeliveryRepository.Attempt> attempts =
                deliveries.attempts(rows.stream().map(d -> d.id).toList());
        return rows.stream().map(d -> DeliveryViews.toResponse(d, attempts)).toList();
    }

    /** The pipeline's state-check settings. @throws DomainException 404 */
    @Transactional(Transactional.TxType.SUPPORTS)
    public StateChecksRequest stateChecks(String pipeline) {
        Optional<Integer> own = events.notAdvancingRuns(pipeline)
                .orElseThrow(() -> new NotFoundException("Pipeline", pipeline));
        return new StateChecksRequest(own.orElse(null), own.orElse(config.events().notAdvancingRuns()));
    }

    /**
     * Sets the pipeline's not-advancing threshold (null: back to the setting).
     *
     * @throws DomainException 404, 400 outside {@value #MIN_RUNS} to {@value #MAX_RUNS}
     */
    public StateChecksRequest setStateChecks(String pipeline, StateChecksRequest req, String actor) {
        Integer n = req.notAdvancingRuns();
        if (n != null && (n < MIN_RUNS || n > MAX_RUNS)) {
            throw InvalidInputException.field("notAdvancingRuns", "must be " + MIN_RUNS + " to " + MAX_RUNS + ", or null");
        }
        if (!events.setNotAdvancingRuns(pipeline, n)) {
            throw new NotFoundException("Pipeline", pipeline);
        }
        audit.record(actor, "pipeline.state-checks", "pipeline", pipeline,
                Map.of("changed", List.of("notAdvancingRuns")));
        return stateChecks(pipeline);
    }

    private Event find(UUID id) {
        Event e = events.findById(id);
        if (e == null) {
            throw new NotFoundException("Event", id.toString());
        }
        return e;
    }

    private static EventResponse toResponse(Event e) {
        return new EventResponse(e.id, e.type, e.pipelineName, e.runId, e.occurredAt, Jsons.read(e.payload));
    }
}
