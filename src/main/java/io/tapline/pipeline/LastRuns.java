package io.tapline.pipeline;

import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/**
 * Port: the newest run of each pipeline, shown as {@code lastRun} in pipeline responses. Declared
 * here and implemented by the run feature ({@code io.tapline.run.LastRunsQuery}), which owns
 * {@code pipeline_run}, so that pipeline never imports run (docs/architecture.md).
 */
public interface LastRuns {

    /**
     * The newest run of a pipeline, in short.
     *
     * @param id run id
     * @param status QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED
     * @param endedAt when it ended (UTC), null while active
     */
    record LastRun(UUID id, String status, OffsetDateTime endedAt) {
    }

    /**
     * The newest run (not a skipped tick) of each pipeline.
     *
     * @param pipelineIds pipeline ids; may be empty
     * @return pipeline id → last run; pipelines without runs are absent
     */
    Map<Long, LastRun> of(Collection<Long> pipelineIds);
}
