package io.tapline.schedule;

import io.tapline.common.api.UuidV7;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.run.Run;
import io.tapline.run.RunRepository;
import io.tapline.run.RunService;
import io.tapline.run.RunStatus;
import io.tapline.run.RunTrigger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Schedule queries over {@code pipeline} and {@code pipeline_run}: the ticker's view of pipelines,
 * firing ticks (relying on the unique indexes {@code uq_run_schedule_tick} and
 * {@code uq_run_active_state_id} through {@link RunRepository#insertIfSlotFree}), last runs for
 * pipeline responses, and the guarded automatic pause.
 */
@ApplicationScoped
public class ScheduleRepository implements ScheduleStore {

    /** Who {@code created_by} names on scheduled runs. */
    public static final String ACTOR = "scheduler";

    private static final String PROJECTION = "select new io.tapline.schedule.ScheduledPipeline(p.id, p.name, p.version,"
            + " p.scheduleInterval, p.scheduleTimezone, p.scheduleEnabled, p.scheduleCatchUp, p.createdAt)"
            + " from Pipeline p";

    private final EntityManager em;
    private final RunRepository runs;
    private final Event<RunService.RunQueued> queued;
    private final Clock clock;

    public ScheduleRepository(EntityManager em, RunRepository runs, Event<RunService.RunQueued> queued, Clock clock) {
        this.em = em;
        this.runs = runs;
        this.queued = queued;
        this.clock = clock;
    }

    @Override
    @Transactional
    public List<ScheduledPipeline> loadAll() {
        return em.createQuery(PROJECTION + " where p.scheduleInterval not in ('@manual', '@none')",
                ScheduledPipeline.class).getResultList();
    }

    @Override
    @Transactional
    public Optional<ScheduledPipeline> load(long pipelineId) {
        return em.createQuery(PROJECTION + " where p.id = :id", ScheduledPipeline.class)
                .setParameter("id", pipelineId).getResultStream().findFirst();
    }

    @Override
    @Transactional
    public Optional<Instant> lastTick(long pipelineId) {
        OffsetDateTime t = em.createQuery("select max(r.scheduledFor) from Run r where r.pipelineId = :id",
                OffsetDateTime.class).setParameter("id", pipelineId).getSingleResult();
        return Optional.ofNullable(t).map(OffsetDateTime::toInstant);
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Fire fire(ScheduledPipeline pipeline, Instant tick) {
        // FOR SHARE: a concurrent edit of the pipeline commits before or after this tick, not in between.
        List<?> rows = em.createNativeQuery("select name, version, schedule_enabled, state_id, state_strategy,"
                        + " state_commit_policy from pipeline where id = :id for share")
                .setParameter("id", pipeline.id()).getResultList();
        if (rows.isEmpty()) {
            return new Fire(Outcome.STALE, null);
        }
        Object[] row = (Object[]) rows.get(0);
        if (((Number) row[1]).longValue() != pipeline.version() || !Boolean.TRUE.equals(row[2])) {
            return new Fire(Outcome.STALE, null);
        }
        String name = (String) row[0];
        String stateId = (String) row[3];
        OffsetDateTime scheduledFor = tick.atOffset(ZoneOffset.UTC);
        for (int attempt = 0; attempt < 3; attempt++) {
            Run run = newRun(pipeline.id(), name, stateId, (String) row[4], (String) row[5], scheduledFor);
            if (runs.insertIfSlotFree(run)) {
                queued.fire(new RunService.RunQueued(run.id));
                return new Fire(Outcome.QUEUED, run.id);
            }
            if (tickTaken(pipeline.id(), scheduledFor)) {
                return new Fire(Outcome.ALREADY_FIRED, null);
            }
            Optional<Run> active = runs.findActive(stateId);
            if (active.isPresent()) {
                Run a = active.get();
                run.status = RunStatus.SKIPPED;
                run.endedAt = run.queuedAt;
                run.errorSummary = "Skipped: run " + a.id + " of state ID '" + stateId + "' (pipeline '"
                        + a.pipelineName + "') was " + a.status + " at this tick; a state ID never runs twice at once.";
                return runs.insertIfSlotFree(run) ? new Fire(Outcome.SKIPPED, run.id)
                        : new Fire(Outcome.ALREADY_FIRED, null);
            }
            // The active run ended between the insert and the look-up: try again.
        }
        throw new IllegalStateException("the run slot of state ID '" + stateId + "' kept changing while firing tick "
                + tick + " of pipeline '" + name + "'");
    }

    private boolean tickTaken(long pipelineId, OffsetDateTime scheduledFor) {
        return !em.createNativeQuery("select 1 from pipeline_run where pipeline_id = :id and scheduled_for = :t")
                .setParameter("id", pipelineId).setParameter("t", scheduledFor).getResultList().isEmpty();
    }

    private Run newRun(long pipelineId, String name, String stateId, String strategy, String policy,
                       OffsetDateTime scheduledFor) {
        Run run = new Run();
        run.id = UuidV7.next();
        run.pipelineId = pipelineId;
        run.pipelineName = name;
        run.stateId = stateId;
        run.trigger = RunTrigger.SCHEDULE;
        run.scheduledFor = scheduledFor;
        run.status = RunStatus.QUEUED;
        run.queuedAt = OffsetDateTime.now(clock);
        run.stateStrategy = strategy;
        run.stateCommitPolicy = policy;
        run.createdBy = ACTOR;
        return run;
    }

    /**
     * The newest run of each pipeline that was not a skipped tick (one query, on
     * {@code ix_run_pipeline_id}).
     *
     * @return pipeline id → last run; pipelines without runs are absent
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Map<Long, PipelineResponse.LastRun> lastRuns(Collection<Long> pipelineIds) {
        Map<Long, PipelineResponse.LastRun> out = new HashMap<>();
        if (pipelineIds.isEmpty()) {
            return out;
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                select distinct on (pipeline_id) pipeline_id, id, status, ended_at from pipeline_run
                where pipeline_id in (:ids) and status <> 'SKIPPED'
                order by pipeline_id, id desc
                """).setParameter("ids", pipelineIds).getResultList();
        for (Object[] r : rows) {
            out.put(((Number) r[0]).longValue(),
                    new PipelineResponse.LastRun((UUID) r[1], (String) r[2], offsetDateTime(r[3])));
        }
        return out;
    }

    /**
     * Counts the pipeline's consecutive failed runs, newest first, up to {@code limit}. A failed
     * run counts once its retries are exhausted ({@code attempt >= maxAttempts}); a failed attempt
     * that will be retried does not count, a SUCCEEDED run ends the streak, SKIPPED and CANCELLED
     * runs are ignored.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public int consecutiveFailures(long pipelineId, int maxAttempts, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                select status, attempt from pipeline_run
                where pipeline_id = :id and status in ('SUCCEEDED', 'FAILED')
                order by id desc limit :k
                """).setParameter("id", pipelineId)
                .setParameter("k", (long) Math.min(100_000, (long) limit * Math.max(1, maxAttempts)))
                .getResultList();
        int failures = 0;
        for (Object[] r : rows) {
            if ("SUCCEEDED".equals(r[0])) {
                break;
            }
            if (((Number) r[1]).intValue() >= maxAttempts && ++failures >= limit) {
                break;
            }
        }
        return failures;
    }

    /**
     * Pauses a pipeline's schedule if it is enabled (compare-and-set on {@code schedule_enabled}).
     *
     * @return true when this call paused it
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean pause(long pipelineId, String reason) {
        return em.createNativeQuery("""
                update pipeline set schedule_enabled = false, schedule_paused_reason = :reason,
                    version = version + 1, updated_at = :now
                where id = :id and schedule_enabled
                """).setParameter("reason", reason).setParameter("now", OffsetDateTime.now(clock))
                .setParameter("id", pipelineId).executeUpdate() == 1;
    }

    private static OffsetDateTime offsetDateTime(Object o) {
        if (o == null || o instanceof OffsetDateTime) {
            return (OffsetDateTime) o;
        }
        if (o instanceof Instant i) {
            return i.atOffset(ZoneOffset.UTC);
        }
        if (o instanceof Timestamp t) {
            return t.toInstant().atOffset(ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("not a timestamp: " + o.getClass().getSimpleName());
    }
}
