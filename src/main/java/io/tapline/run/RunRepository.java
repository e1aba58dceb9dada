package io.tapline.run;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.Query;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Queries and guarded status changes of {@link Run}. Every transition is a compare-and-set on
 * the current status (and, for running runs, on the owner instance); a result of 0 rows means
 * another replica or request won the race, and the caller must treat it so.
 */
@ApplicationScoped
public class RunRepository implements PanacheRepositoryBase<Run, UUID> {

    /**
     * Inserts a run unless its state ID already has an active run, or (for scheduled runs) its
     * tick already has a run. Relies on the partial unique indexes of the V3 migration, so two
     * replicas inserting at once cannot both succeed.
     *
     * @return true when inserted
     */
    public boolean insertIfSlotFree(Run r) {
        int n = getEntityManager().createNativeQuery("""
                insert into pipeline_run (id, pipeline_id, pipeline_name, state_id, trigger, scheduled_for, status,
                    attempt, retry_of, not_before, full_refresh, full_refresh_streams, state_strategy,
                    state_commit_policy, queued_at, created_by, error_summary, ended_at)
                values (:id, :pipelineId, :pipelineName, :stateId, :trigger, :scheduledFor, :status,
                    :attempt, :retryOf, :notBefore, :fullRefresh, :frStreams, :strategy, :policy, :queuedAt,
                    :createdBy, :error, :endedAt)
                on conflict do nothing
                """)
                .setParameter("id", r.id)
                .setParameter("pipelineId", r.pipelineId)
                .setParameter("pipelineName", r.pipelineName)
                .setParameter("stateId", r.stateId)
                .setParameter("trigger", r.trigger.name())
                .setParameter("scheduledFor", r.scheduledFor)
                .setParameter("status", r.status.name())
                .setParameter("attempt", r.attempt)
                .setParameter("retryOf", r.retryOf)
                .setParameter("notBefore", r.notBefore)
                .setParameter("fullRefresh", r.fullRefresh)
                .setParameter("frStreams", r.fullRefreshStreams)
                .setParameter("strategy", r.stateStrategy)
                .setParameter("policy", r.stateCommitPolicy)
                .setParameter("queuedAt", r.queuedAt)
                .setParameter("createdBy", r.createdBy)
                .setParameter("error", r.errorSummary)
                .setParameter("endedAt", r.endedAt)
                .executeUpdate();
        return n == 1;
    }

    /** The QUEUED or RUNNING run of a state ID, if any. */
    public Optional<Run> findActive(String stateId) {
        return find("stateId = ?1 and status in ?2", stateId, RunStatus.ACTIVE).firstResultOptional();
    }

    /**
     * Claims the oldest due QUEUED run for {@code instance} (QUEUED → RUNNING), skipping rows
     * another replica is claiming at the same moment ({@code FOR UPDATE SKIP LOCKED}).
     *
     * @return the claimed run's id, if any was due
     */
    public Optional<UUID> claimNext(String instance, OffsetDateTime now) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                update pipeline_run set status = 'RUNNING', owner_instance = :owner, started_at = :now,
                    last_heartbeat_at = :now, version = version + 1
                where id = (select id from pipeline_run
                            where status = 'QUEUED' and (not_before is null or not_before <= :now)
                            order by queued_at limit 1 for update skip locked)
                  and status = 'QUEUED'
                returning id
                """, UUID.class)
                .setParameter("owner", instance)
                .setParameter("now", now)
                .getResultList();
        return ids.stream().findFirst();
    }

    /**
     * Refreshes the heartbeat of the given RUNNING runs owned by {@code instance}.
     *
     * @return the ids still RUNNING and owned (a missing id was reaped or finished elsewhere)
     */
    public List<UUID> heartbeat(Collection<UUID> ids, String instance, OffsetDateTime now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        @SuppressWarnings("unchecked")
        List<UUID> alive = getEntityManager().createNativeQuery("""
                update pipeline_run set last_heartbeat_at = :now
                where id in (:ids) and status = 'RUNNING' and owner_instance = :owner
                returning id
                """, UUID.class)
                .setParameter("now", now).setParameter("ids", ids).setParameter("owner", instance)
                .getResultList();
        return new ArrayList<>(alive);
    }

    /** Ids among {@code ids} whose cancellation was requested. */
    public List<UUID> cancelRequested(Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return getEntityManager().createQuery(
                        "select r.id from Run r where r.id in :ids and r.cancelRequestedAt is not null", UUID.class)
                .setParameter("ids", ids).getResultList();
    }

    /**
     * Fails every RUNNING run whose heartbeat is older than {@code deadline}, whatever its owner
     * (the reaper runs on every replica; the guard makes it idempotent).
     *
     * @return the ids it failed
     */
    public List<UUID> reapStale(OffsetDateTime deadline, OffsetDateTime now, String reason) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                update pipeline_run set status = 'FAILED', ended_at = :now, failed_component = 'service',
                    error_summary = :reason, version = version + 1
                where status = 'RUNNING' and last_heartbeat_at < :deadline
                returning id
                """, UUID.class)
                .setParameter("now", now).setParameter("deadline", deadline).setParameter("reason", reason)
                .getResultList();
        return ids;
    }

    /**
     * Moves a run from {@code from} to {@code to} with an end time and reason (guarded).
     *
     * @return true when this call made the change
     */
    public boolean transition(UUID id, RunStatus from, RunStatus to, OffsetDateTime endedAt, String reason) {
        if (!from.canMoveTo(to)) {
            throw new IllegalArgumentException("transition " + from + " -> " + to + " is not allowed");
        }
        Query q = getEntityManager().createNativeQuery("""
                update pipeline_run set status = :to, ended_at = coalesce(:ended, ended_at),
                    error_summary = coalesce(:reason, error_summary), version = version + 1
                where id = :id and status = :from
                """)
                .setParameter("to", to.name()).setParameter("from", from.name())
                .setParameter("ended", endedAt).setParameter("reason", reason).setParameter("id", id);
        return q.executeUpdate() == 1;
    }

    /** Records who cancelled a run (the first canceller is kept). */
    public void recordCanceller(UUID id, String actor) {
        getEntityManager().createNativeQuery("update pipeline_run set cancelled_by = coalesce(cancelled_by, :actor)"
                + " where id = :id").setParameter("actor", actor).setParameter("id", id).executeUpdate();
    }

    /** Records a cancel request on an active run; true when the run was active. */
    public boolean requestCancel(UUID id, OffsetDateTime now, String reason) {
        return getEntityManager().createNativeQuery("""
                update pipeline_run set cancel_requested_at = coalesce(cancel_requested_at, :now),
                    cancel_reason = coalesce(cancel_reason, :reason), version = version + 1
                where id = :id and status in ('QUEUED', 'RUNNING')
                """).setParameter("now", now).setParameter("reason", reason).setParameter("id", id)
                .executeUpdate() == 1;
    }

    /**
     * One page of runs, newest first, keyset on the UUIDv7 id.
     *
     * @param filter optional filters; null fields are ignored
     */
    public List<Run> page(RunFilter filter, UUID beforeId, int limit) {
        StringBuilder q = new StringBuilder("1 = 1");
        io.quarkus.panache.common.Parameters p = new io.quarkus.panache.common.Parameters();
        if (filter.pipeline() != null) {
            q.append(" and pipelineName = :pipeline");
            p.and("pipeline", filter.pipeline());
        }
        if (filter.status() != null) {
            q.append(" and status = :status");
            p.and("status", filter.status());
        }
        if (filter.trigger() != null) {
            q.append(" and trigger = :trigger");
            p.and("trigger", filter.trigger());
        }
        if (filter.from() != null) {
            q.append(" and id >= :fromId");
            p.and("fromId", io.tapline.common.api.UuidV7.lowerBound(filter.from().toInstant().toEpochMilli()));
        }
        if (filter.to() != null) {
            q.append(" and id < :toId");
            p.and("toId", io.tapline.common.api.UuidV7.lowerBound(filter.to().toInstant().toEpochMilli()));
        }
        if (beforeId != null) {
            q.append(" and id < :before");
            p.and("before", beforeId);
        }
        q.append(" order by id desc");
        return find(q.toString(), p).page(0, limit).list();
    }

    /**
     * Filters of the run list.
     *
     * @param pipeline pipeline name
     * @param status run status
     * @param trigger run trigger
     * @param from runs created at or after (UTC)
     * @param to runs created before (UTC)
     */
    public record RunFilter(String pipeline, RunStatus status, RunTrigger trigger, OffsetDateTime from,
                            OffsetDateTime to) {
    }

    /** Names of the pipelines that have runs (including deleted pipelines, whose runs keep the name). */
    public List<String> pipelineNamesWithRuns() {
        return getEntityManager().createNativeQuery("select distinct pipeline_name from pipeline_run", String.class)
                .getResultList();
    }

    /**
     * The id of the {@code n}-th newest run of a pipeline (n >= 1), or empty when it has fewer
     * than {@code n} runs. Runs older than it are beyond the newest {@code n}.
     */
    public Optional<UUID> nthNewestId(String pipelineName, int n) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                select id from pipeline_run where pipeline_name = :name order by id desc offset :skip limit 1
                """, UUID.class)
                .setParameter("name", pipelineName).setParameter("skip", n - 1).getResultList();
        return ids.stream().findFirst();
    }

    /**
     * Deletes up to {@code limit} terminal runs of a pipeline whose ids are below both bounds,
     * oldest first, skipping rows another transaction holds ({@code FOR UPDATE SKIP LOCKED}), so a
     * run being finished or cancelled meanwhile is left for the next sweep and nobody waits.
     *
     * @return the ids deleted
     */
    public List<UUID> deleteTerminalBefore(String pipelineName, UUID createdBefore, UUID olderThan, int limit) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                delete from pipeline_run where id in (
                    select id from pipeline_run
                    where pipeline_name = :name and id < :createdBefore and id < :olderThan
                      and status in ('SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED')
                    order by id limit :limit
                    for update skip locked)
                returning id
                """, UUID.class)
                .setParameter("name", pipelineName).setParameter("createdBefore", createdBefore)
                .setParameter("olderThan", olderThan).setParameter("limit", limit).getResultList();
        return ids;
    }
}
