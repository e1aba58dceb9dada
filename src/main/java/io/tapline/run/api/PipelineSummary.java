package io.tapline.run.api;

import io.tapline.pipeline.api.PipelineResponse;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * One row of {@code GET /api/v1/pipelines:summary}: a pipeline as {@code GET /api/v1/pipelines}
 * lists it (schedule, {@code nextRunAt}, {@code lastRun}) plus its most recent runs, what the
 * console's pipelines page draws its records column and duration sparkline from.
 *
 * @param pipeline the pipeline, as in the pipeline list
 * @param recentRuns its newest runs that were not skipped ticks, newest first (at most the
 *     {@code recent} query parameter, default 20)
 */
public record PipelineSummary(PipelineResponse pipeline, List<RecentRun> recentRuns) {

    /**
     * A run in short.
     *
     * @param id run id
     * @param status QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED
     * @param trigger MANUAL, SCHEDULE, RETRY, ...
     * @param startedAt when it started (UTC), null while queued
     * @param endedAt when it ended (UTC), null while active
     * @param durationMs ended minus started in milliseconds; null until it has ended
     * @param recordsTotal RECORD messages relayed
     */
    public record RecentRun(UUID id, String status, String trigger, OffsetDateTime startedAt, OffsetDateTime endedAt,
                            Long durationMs, long recordsTotal) {
    }
}
