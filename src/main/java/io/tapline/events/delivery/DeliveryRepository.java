package io.tapline.events.delivery;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import io.tapline.events.SqlTimes;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * Queries of {@code event_delivery} and {@code event_delivery_attempt}. The claim takes due rows
 * with {@code FOR UPDATE SKIP LOCKED} and leases them, so replicas never attempt one delivery at
 * the same time; every settle is guarded by the attempt number it claimed.
 */
@ApplicationScoped
public class DeliveryRepository implements PanacheRepositoryBase<Delivery, UUID> {

    /**
     * Claims up to {@code limit} due deliveries for one attempt each: counts the attempt and moves
     * {@code next_attempt_at} to {@code leaseUntil}, so a replica that dies mid-attempt leaves the
     * delivery to be retried after the lease.
     */
    public List<Claimed> claim(OffsetDateTime now, OffsetDateTime leaseUntil, int limit) {
        List<?> rows = getEntityManager().createNativeQuery("""
                        with due as (
                            select id from event_delivery
                            where status = 'PENDING' and next_attempt_at <= :now
                            order by next_attempt_at, id
                            limit :n
                            for update skip locked),
                        claimed as (
                            update event_delivery d set attempts = d.attempts + 1, next_attempt_at = :lease,
                                last_attempt_at = :now
                            from due where d.id = due.id
                            returning d.id, d.sink, d.body, d.attempts, d.created_at, d.give_up_at, d.event_id,
                                d.webhook_id, d.next_attempt_at)
                        select c.id, c.sink, c.body, c.attempts, c.created_at, c.give_up_at, e.type, w.url, w.secret
                        from claimed c
                        join event e on e.id = c.event_id
                        left join webhook w on w.id = c.webhook_id
                        order by c.id
                        """)
                .setParameter("now", now).setParameter("lease", leaseUntil).setParameter("n", limit)
                .getResultList();
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new Claimed((UUID) r[0], Sink.valueOf((String) r[1]), (String) r[2], ((Number) r[3]).intValue(),
                    SqlTimes.of(r[4]), SqlTimes.of(r[5]), (String) r[6], (String) r[7], (String) r[8]);
        }).toList();
    }

    /**
     * Hands a claimed delivery back without an attempt: its attempt count is restored and it is due
     * again at {@code due}; nothing when it was meanwhile settled or claimed again.
     */
    public void handBack(UUID id, int attempt, OffsetDateTime due) {
        getEntityManager().createNativeQuery("update event_delivery set attempts = attempts - 1, next_attempt_at = :due"
                        + " where id = :id and attempts = :attempt and status = 'PENDING'")
                .setParameter("due", due).setParameter("id", id).setParameter("attempt", attempt).executeUpdate();
    }

    /**
     * Settles one attempt: DELIVERED, or PENDING again at {@code nextAttemptAt}, or FAILED (given
     * up) when {@code nextAttemptAt} is null; and logs the attempt.
     *
     * @return false when the delivery was meanwhile settled by another claim or deleted (nothing written)
     */
    public boolean settle(UUID id, int attempt, OffsetDateTime at, Integer statusCode, String error, boolean delivered,
                          OffsetDateTime nextAttemptAt, long durationMs) {
        String set = delivered ? "status = 'DELIVERED', delivered_at = :at"
                : nextAttemptAt == null ? "status = 'FAILED'" : "next_attempt_at = :next";
        var q = getEntityManager().createNativeQuery("update event_delivery set " + set
                        + ", last_status_code = cast(:code as integer), last_error = cast(:error as varchar)"
                        + " where id = :id and attempts = :attempt and status = 'PENDING'")
                .setParameter("code", statusCode == null ? null : statusCode.toString())
                .setParameter("error", error).setParameter("id", id).setParameter("attempt", attempt);
        if (delivered) {
            q.setParameter("at", at);
        } else if (nextAttemptAt != null) {
            q.setParameter("next", nextAttemptAt);
        }
        int n = q.executeUpdate();
        if (n != 1) {
            return false;
        }
        getEntityManager().createNativeQuery("""
                        insert into event_delivery_attempt (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
                        values (:id, :attempt, :at, cast(:code as integer), cast(:error as varchar), :ms)
                        on conflict do nothing
                        """)
                .setParameter("id", id).setParameter("attempt", attempt).setParameter("at", at)
                .setParameter("code", statusCode == null ? null : statusCode.toString()).setParameter("error", error).setParameter("ms", durationMs)
                .executeUpdate();
        return true;
    }

    /** A webhook's deliveries, newest first, older than the cursor id when given. */
    public List<Delivery> ofWebhook(UUID webhookId, UUID before, int limit) {
        if (before == null) {
            return find("webhookId = ?1 order by id desc", webhookId).page(0, limit).list();
        }
        return find("webhookId = ?1 and id < ?2 order by id desc", webhookId, before).page(0, limit).list();
    }

    /** The deliveries of one event (webhooks and OpenLineage), oldest first. */
    public List<Delivery> ofEvent(UUID eventId) {
        return find("eventId = ?1 order by id", eventId).list();
    }

    /** The attempts of deliveries, in attempt order, keyed by delivery id. */
    public List<Attempt> attempts(List<UUID> deliveryIds) {
        if (deliveryIds.isEmpty()) {
            return List.of();
        }
        List<?> rows = getEntityManager().createNativeQuery("""
                        select delivery_id, attempt, attempted_at, status_code, error, duration_ms
                        from event_delivery_attempt where delivery_id in (:ids) order by delivery_id, attempt
                        """)
                .setParameter("ids", deliveryIds).getResultList();
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new Attempt((UUID) r[0], ((Number) r[1]).intValue(), SqlTimes.of(r[2]),
                    r[3] == null ? null : ((Number) r[3]).intValue(), (String) r[4], ((Number) r[5]).longValue());
        }).toList();
    }

    /**
     * One logged attempt.
     *
     * @param deliveryId the delivery
     * @param attempt 1 = first
     * @param at when it was made
     * @param statusCode the HTTP status answered, null when none (connection refused, timeout, refused host)
     * @param error why it failed, null when delivered
     * @param durationMs request time in milliseconds
     */
    public record Attempt(UUID deliveryId, int attempt, OffsetDateTime at, Integer statusCode, String error,
                          long durationMs) {
    }
}
