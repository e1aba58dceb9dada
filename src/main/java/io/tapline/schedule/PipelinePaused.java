package io.tapline.schedule;

import java.util.UUID;

/**
 * Fired synchronously inside the transaction in which a pipeline's schedule paused itself after
 * consecutive failed runs ({@link ScheduleService#onRunFinished}). Observers may write in that
 * transaction (the events outbox records {@code pipeline.paused}).
 *
 * @param pipelineId the pipeline's id
 * @param pipelineName its name
 * @param reason the reason stored in {@code schedule_paused_reason}
 * @param runId the failed run that completed the streak
 * @param failures the configured {@code pauseAfterFailures}
 */
public record PipelinePaused(long pipelineId, String pipelineName, String reason, UUID runId, int failures) {
}
