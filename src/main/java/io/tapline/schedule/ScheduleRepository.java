package io.tapline.schedule;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * Schedule queries over {@code pipeline} and {@code pipeline_run}: the ticker's view of pipelines,
 * firing ticks (set-based, relying on the unique indexes {@code uq_run_schedule_tick} and
 * {@code uq_run_active_state_id}: see {@link ScheduleTickRepository}) and the guarded automatic
 * pause.
 */
@ApplicationScoped
public class ScheduleRepository implements ScheduleStore {

    /** Who {@code created_by} names on scheduled runs. */
    public static final String ACTOR = "scheduler";

    private static final String PROJECTION = "select new io.tapline.schedule.ScheduledPipeline(p.id, p.name, p.version,"
            + " p.scheduleInterval, p.scheduleTimezone, p.scheduleEnabled, p.scheduleCatchUp, p.createdAt)"
            + " from Pipeline p";

    private final EntityManager em;
    private final ScheduleTickRepository ticks;
    private final Clock clock;

    public ScheduleRepository(EntityManager em, ScheduleTickRepository ticks, Clock clock) {
        this.em = em;
        this.ticks = ticks;
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
        return ticks.record(List.of(new Tick(pipeline, tick))).get(0);
    }

    /** Records the ticks with a few set-based statements in one new transaction ({@link ScheduleTickRepository}). */
    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Fire> fireAll(List<Tick> batch) {
        return ticks.record(batch);
    }

    /**
     * Claims the batch with {@code pg_try_advisory_xact_lock} ({@link ScheduleTickRepository#claim})
     * and records it in one new transaction; empty, with nothing written, when another transaction
     * holds the claim.
     */
    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<List<Fire>> fireAllUnlessClaimed(List<Tick> batch) {
        if (!ticks.claim(batch)) {
            return Optional.empty();
        }
        return Optional.of(ticks.record(batch));
    }

    /**
     * Counts the pipeline's consecutive failed runs, newest first, up to {@code limit}. A failed
     * run counts once its retries are exhausted: its attempt reached {@code maxAttempts}, or its
     * failure is not retryable ({@code failure_retryable = false}, e.g. a {@code configuration}
     * failure, which {@link RetryPlanner} never retries). A failed attempt that will be retried
     * does not count, a SUCCEEDED run ends the streak, SKIPPED and CANCELLED runs are ignored.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public int consecutiveFailures(long pipelineId, int maxAttempts, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                select status, attempt, failure_retryable from pipeline_run
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
            boolean exhausted = ((Number) r[1]).intValue() >= maxAttempts || Boolean.FALSE.equals(r[2]);
            if (exhausted && ++failures >= limit) {
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
}
