package io.tapline.audit;

import io.quarkus.arc.Arc;
import io.tapline.audit.api.AuditEventResponse;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.api.RequestIds;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.CurrentActor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * The audit trail. Services call {@link #record} inside their own transaction, so an event is
 * stored exactly when its change commits. Details are summaries built by the callers (field and
 * setting names, versions, ids); callers never put setting values in them.
 */
@ApplicationScoped
@Transactional
public class AuditService {

    /** Actor of changes made outside an HTTP request (scheduler, run engine). */
    public static final String SYSTEM = "system";

    private final AuditRepository events;
    private final Clock clock;
    private final Instance<CurrentActor> actor;
    private final RequestIds requestIds;

    public AuditService(AuditRepository events, Clock clock, Instance<CurrentActor> actor, RequestIds requestIds) {
        this.events = events;
        this.clock = clock;
        this.actor = actor;
        this.requestIds = requestIds;
    }

    /**
     * Records an event by the current caller (see {@link #currentActor()}).
     *
     * @param action {@code <targetType>.<verb>}
     * @param targetType plugin, pipeline, state or run
     * @param target what was changed
     * @param details summary of the change, written as a JSON object; never setting values
     */
    public void record(String action, String targetType, String target, Map<String, ?> details) {
        record(currentActor(), action, targetType, target, details);
    }

    /** Records an event by {@code actor}; as {@link #record(String, String, String, Map)}. */
    public void record(String actor, String action, String targetType, String target, Map<String, ?> details) {
        events.insert(event(actor, action, targetType, target, details));
    }

    /**
     * The event {@link #record(String, String, String, String, Map)} stores, not yet stored: for a
     * writer that sends it with its own statements ({@link AuditRepository#INSERT}), in its
     * transaction.
     */
    public AuditEvent event(String actor, String action, String targetType, String target, Map<String, ?> details) {
        AuditEvent e = new AuditEvent();
        e.at = OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        e.actor = cut(actor == null ? SYSTEM : actor, 200);
        e.action = cut(action, 64);
        e.targetType = cut(targetType, 32);
        e.target = cut(target, 1000);
        e.details = Jsons.write(details == null ? Map.of() : details);
        e.requestId = requestIds.current();
        return e;
    }

    /** The caller of the current HTTP request, or {@link #SYSTEM} outside one. */
    public String currentActor() {
        if (Arc.container() == null || !Arc.container().requestContext().isActive()) {
            return SYSTEM;
        }
        try {
            return actor.get().name();
        } catch (RuntimeException e) {
            return SYSTEM;
        }
    }

    /**
     * One page of events, newest first.
     *
     * @param cursor opaque cursor from the previous page, or null
     * @throws InvalidInputException 400 for a cursor not made by this API
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Page<AuditEventResponse> list(AuditRepository.AuditFilter filter, String cursor, int limit) {
        String key = Cursors.decode(cursor);
        OffsetDateTime beforeAt = null;
        Long beforeId = null;
        if (key != null) {
            int bar = key.indexOf('|');
            try {
                beforeAt = OffsetDateTime.parse(key.substring(0, bar));
                beforeId = Long.parseLong(key.substring(bar + 1));
            } catch (RuntimeException e) {
                throw InvalidInputException.field("cursor", "is not a cursor returned by this API");
            }
        }
        List<AuditEvent> rows = events.page(filter, beforeAt, beforeId, limit + 1);
        boolean more = rows.size() > limit;
        List<AuditEvent> page = more ? rows.subList(0, limit) : rows;
        String next = null;
        if (more) {
            AuditEvent last = page.get(page.size() - 1);
            next = Cursors.encode(last.at.withOffsetSameInstant(ZoneOffset.UTC) + "|" + last.id);
        }
        return new Page<>(page.stream().map(AuditService::toResponse).toList(), next);
    }

    private static AuditEventResponse toResponse(AuditEvent e) {
        return new AuditEventResponse(e.id, e.at, e.actor, e.action, e.targetType, e.target, Jsons.read(e.details),
                e.requestId);
    }

    private static String cut(String s, int max) {
        return s.length() > max ? s.substring(0, max) : s;
    }
}
