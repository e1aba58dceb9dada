package io.tapline.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What {@link ScheduleTicker} reads and writes in the database. {@link ScheduleRepository} is the
 * implementation; tests may filter or fake it.
 */
public interface ScheduleStore {

    /** Every pipeline with a recurring or {@code @once} interval, paused ones included. */
    List<ScheduledPipeline> loadAll();

    /** One pipeline's schedule row; empty when the pipeline no longer exists. */
    Optional<ScheduledPipeline> load(long pipelineId);

    /** The latest {@code scheduled_for} of the pipeline's runs (its last tick), if it ever had one. */
    Optional<Instant> lastTick(long pipelineId);

    /**
     * Records the run of one tick, exactly once across replicas: a QUEUED run, or a SKIPPED run
     * naming the active run of the pipeline's state ID. A second call for the same tick, from this
     * or another replica, changes nothing.
     *
     * @param pipeline the schedule as the caller knows it; when the stored row has another
     *                 version or is paused or gone, nothing is written ({@link Outcome#STALE})
     * @param tick the scheduled instant, stored as {@code scheduled_for}
     * @return what happened
     */
    Fire fire(ScheduledPipeline pipeline, Instant tick);

    /**
     * Records many ticks, each with {@link #fire}'s contract, in one transaction: either every
     * result below is committed or the call throws and nothing of it is (the caller may then try
     * the ticks one by one). {@link ScheduleRepository} does it with a few set-based statements;
     * this default fires them one at a time.
     *
     * @param ticks the ticks to record, usually the pipelines due at one instant (a batch)
     * @return one result per tick, in the order given
     */
    default List<Fire> fireAll(List<Tick> ticks) {
        return ticks.stream().map(t -> fire(t.pipeline(), t.at())).toList();
    }

    /**
     * {@link #fireAll}, unless another replica is recording the same batch at this moment: then
     * nothing is written and the result is empty, so the caller can record other batches first and
     * come back to this one (by then usually committed, and cheap to confirm). Only a shortcut: the
     * database's unique indexes keep each tick to one row whether or not the batch was claimed.
     * {@link ScheduleRepository} claims a batch with a transaction-level advisory lock; this default
     * never finds one claimed.
     *
     * @param ticks the ticks to record (a batch); the same batch on two replicas is the same ticks
     *              in the same order
     * @return one result per tick, in the order given; empty when the batch was claimed elsewhere
     */
    default Optional<List<Fire>> fireAllUnlessClaimed(List<Tick> ticks) {
        return Optional.of(fireAll(ticks));
    }

    /**
     * One tick to record.
     *
     * @param pipeline the schedule as the caller knows it (see {@link #fire})
     * @param at the scheduled instant, stored as {@code scheduled_for}
     */
    record Tick(ScheduledPipeline pipeline, Instant at) {
    }

    /** What {@link #fire} did. */
    enum Outcome {
        /** A run was queued for the tick. */
        QUEUED,
        /** The state ID was busy; a SKIPPED run records the tick. */
        SKIPPED,
        /** The tick already had a run (another replica, or an earlier call). */
        ALREADY_FIRED,
        /** The pipeline changed, was paused or deleted since the caller loaded it; nothing written. */
        STALE
    }

    /**
     * Result of {@link #fire}.
     *
     * @param outcome what happened
     * @param runId the run written, for QUEUED and SKIPPED
     */
    record Fire(Outcome outcome, UUID runId) {
    }
}
