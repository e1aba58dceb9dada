package io.tapline.schedule;

import io.tapline.schedule.ScheduleStore.Fire;
import io.tapline.schedule.ScheduleStore.Tick;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Records ticks for a {@link ScheduleTicker} through its {@link ScheduleStore}, counting and logging
 * each outcome. Many ticks (the pipelines due at one instant) go in batches of {@code batchSize},
 * each batch one {@link ScheduleStore#fireAll} transaction; batches are taken in pipeline-id order
 * starting at a point given by {@code phase} and wrapping around, so two replicas with different
 * phases write different batches first instead of queueing behind each other on the same rows.
 * A batch another replica is recording at that moment ({@link ScheduleStore#fireAllUnlessClaimed})
 * is left for the end, when it is usually committed and costs one look-up.
 * A batch that fails is tried one tick at a time (each in its own transaction, so one bad pipeline
 * does not stop the others); after two failures in a row the database is taken to be unavailable
 * and the remaining ticks are left for the caller to retry.
 */
final class TickFirer {

    private static final Logger LOG = Logger.getLogger(ScheduleTicker.class); // the ticker's log category, as before

    /** SKIPPED ticks of one batch logged one line each at INFO; beyond that, one summary line. */
    private static final int SKIPPED_LINES = 10;

    private final ScheduleStore store;
    private final ScheduleTicker.Stats stats;
    private final int batchSize;
    private final double phase;
    private final Runnable onFailure;

    /**
     * @param store database access
     * @param stats counters to update
     * @param batchSize ticks per {@link ScheduleStore#fireAll} call, at least 1
     * @param phase where in the id-ordered batches to start, in [0, 1)
     * @param onFailure called after a failed write (the ticker backs off)
     */
    TickFirer(ScheduleStore store, ScheduleTicker.Stats stats, int batchSize, double phase, Runnable onFailure) {
        if (batchSize < 1 || phase < 0 || phase >= 1) {
            throw new IllegalArgumentException("batch size " + batchSize + ", phase " + phase);
        }
        this.store = store;
        this.stats = stats;
        this.batchSize = batchSize;
        this.phase = phase;
        this.onFailure = onFailure;
    }

    /**
     * Records the ticks in batches.
     *
     * @param ticks at most one tick per pipeline
     * @param why what the ticks are, for the log ("tick")
     * @return one result per tick in the order given; null for a tick whose write failed (the
     *         caller tries it again later)
     */
    List<Fire> fireAll(List<Tick> ticks, String why) {
        Fire[] out = new Fire[ticks.size()];
        Integer[] order = new Integer[ticks.size()];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingLong(i -> ticks.get(i).pipeline().id()));
        int batches = (ticks.size() + batchSize - 1) / batchSize;
        int first = (int) (phase * batches);
        int[] failuresInARow = {0};
        List<List<Integer>> claimedElsewhere = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            int from = ((first + b) % batches) * batchSize;
            List<Integer> idx = Arrays.asList(order).subList(from, Math.min(from + batchSize, order.length));
            if (!fire(ticks, idx, why, true, failuresInARow, out)) {
                claimedElsewhere.add(idx);
            }
        }
        // Batches another replica was recording: by now mostly committed, so each costs a look-up.
        for (List<Integer> idx : claimedElsewhere) {
            fire(ticks, idx, why, false, failuresInARow, out);
        }
        return Arrays.asList(out);
    }

    /** How one batch's transaction ended. */
    private enum BatchEnd {
        /** Committed; its results are written out. */
        RECORDED,
        /** Rolled back as a whole (or not tried: one tick, or the database is taken to be down). */
        FAILED,
        /** Left alone: another replica was recording it. */
        CLAIMED_ELSEWHERE
    }

    /**
     * Records the ticks {@code idx} of {@code ticks} as one batch into {@code out}, or one by one
     * when the batch fails.
     *
     * @param unlessClaimed leave the batch alone when another replica is recording it
     * @return false when the batch was left alone (nothing written to {@code out})
     */
    private boolean fire(List<Tick> ticks, List<Integer> idx, String why, boolean unlessClaimed,
            int[] failuresInARow, Fire[] out) {
        List<Tick> batch = idx.stream().map(ticks::get).toList();
        Fire[] fired = new Fire[batch.size()];
        BatchEnd end = failuresInARow[0] >= 2 ? BatchEnd.FAILED : fireBatch(batch, why, unlessClaimed, fired);
        if (end == BatchEnd.CLAIMED_ELSEWHERE) {
            return false;
        }
        List<Fire> each = end == BatchEnd.RECORDED ? Arrays.asList(fired) : fireEach(batch, why, failuresInARow);
        for (int i = 0; i < idx.size(); i++) {
            out[idx.get(i)] = each.get(i);
        }
        return true;
    }

    /** One batch in one transaction; on {@link BatchEnd#RECORDED} its results are in {@code out}. */
    private BatchEnd fireBatch(List<Tick> batch, String why, boolean unlessClaimed, Fire[] out) {
        if (batch.size() == 1) {
            return BatchEnd.FAILED; // tried alone by fireEach, with its own error handling
        }
        List<Fire> fired;
        try {
            if (unlessClaimed) {
                Optional<List<Fire>> recorded = store.fireAllUnlessClaimed(batch);
                if (recorded.isEmpty()) {
                    LOG.debugf("A batch of %d ticks is being recorded by another replica; coming back to it",
                            batch.size());
                    return BatchEnd.CLAIMED_ELSEWHERE;
                }
                fired = recorded.get();
            } else {
                fired = store.fireAll(batch);
            }
        } catch (RuntimeException ex) {
            stats.failed.incrementAndGet();
            LOG.warnf(ex, "Recording a batch of %d ticks failed; recording them one by one", batch.size());
            return BatchEnd.FAILED;
        }
        int skipped = 0;
        for (int i = 0; i < batch.size(); i++) {
            Fire f = fired.get(i);
            Tick t = batch.get(i);
            count(t.pipeline(), t.at(), why, f, f.outcome() != ScheduleStore.Outcome.SKIPPED || ++skipped <= SKIPPED_LINES);
            out[i] = f;
        }
        if (skipped > SKIPPED_LINES) {
            LOG.infof("%d more %ss of this batch skipped (state ID busy); each is logged at DEBUG",
                    skipped - SKIPPED_LINES, why);
        }
        return BatchEnd.RECORDED;
    }

    /**
     * The ticks one by one; after two failures in a row (counted across the batches of one call),
     * the rest get null without being tried.
     */
    private List<Fire> fireEach(List<Tick> batch, String why, int[] failuresInARow) {
        List<Fire> out = new ArrayList<>();
        for (Tick t : batch) {
            Fire f = failuresInARow[0] >= 2 ? null : fire(t.pipeline(), t.at(), why);
            failuresInARow[0] = f == null ? failuresInARow[0] + 1 : 0;
            out.add(f);
        }
        return out;
    }

    /** Records one tick in its own transaction; null when it failed with an error (logged and counted). */
    Fire fire(ScheduledPipeline p, Instant tick, String why) {
        try {
            Fire f = store.fire(p, tick);
            count(p, tick, why, f, true);
            return f;
        } catch (RuntimeException ex) {
            stats.failed.incrementAndGet();
            LOG.errorf(ex, "Pipeline '%s': recording %s %s failed", p.name(), why, tick);
            onFailure.run();
            return null;
        }
    }

    private void count(ScheduledPipeline p, Instant tick, String why, Fire f, boolean logSkipAtInfo) {
        switch (f.outcome()) {
            case QUEUED -> {
                stats.queued.incrementAndGet();
                LOG.debugf("Pipeline '%s': %s %s queued run %s", p.name(), why, tick, f.runId());
            }
            case SKIPPED -> {
                stats.skipped.incrementAndGet();
                LOG.logf(logSkipAtInfo ? Logger.Level.INFO : Logger.Level.DEBUG,
                        "Pipeline '%s': %s %s skipped (state ID busy), run %s", p.name(), why, tick, f.runId());
            }
            case ALREADY_FIRED -> stats.alreadyFired.incrementAndGet();
            case STALE -> LOG.debugf("Pipeline '%s' changed before %s %s; re-planning", p.name(), why, tick);
        }
    }
}
