package io.tapline.pipeline;

import java.time.Instant;

/**
 * Port: when a pipeline's schedule fires next, shown as {@code nextRunAt} in pipeline responses.
 * Declared here and implemented by the schedule feature ({@code io.tapline.schedule.ScheduleService}),
 * which decides when pipelines run, so that pipeline never imports schedule (docs/architecture.md).
 */
public interface NextRuns {

    /**
     * The pipeline's next fire time after now.
     *
     * @param p the pipeline, loaded in the caller's transaction
     * @return the instant (UTC), or null when manual, {@code @once}, paused, or when its stored
     *     interval or zone no longer parses
     */
    Instant nextRunAt(Pipeline p);
}
