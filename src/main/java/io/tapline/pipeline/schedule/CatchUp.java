package io.tapline.pipeline.schedule;

/**
 * What a schedule does about ticks it missed while no replica was running or while it was paused
 * (product.md §5: missed ticks are not replayed, except one catch-up run when the policy says so).
 */
public enum CatchUp {
    /** Missed ticks are dropped; the next run is the next tick after now (default). */
    NONE,
    /**
     * When a replica starts or the pipeline is resumed and at least one tick was missed since the
     * last scheduled run, one run is fired for the most recent missed tick.
     */
    ONE
}
