package io.tapline.schedule;

import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.run.Run;
import io.tapline.run.RunRepository;
import io.tapline.run.RunService;
import io.tapline.run.RunStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Queues the retry of a failed run under its pipeline's {@link RetryPolicy}. The run engine calls
 * {@link #onRunFinished} after every terminal status.
 */
@ApplicationScoped
@Transactional
public class RetryPlanner {

    private static final Logger LOG = Logger.getLogger(RetryPlanner.class);

    private final PipelineRepository pipelines;
    private final RunRepository runs;
    private final RunService runService;

    public RetryPlanner(PipelineRepository pipelines, RunRepository runs, RunService runService) {
        this.pipelines = pipelines;
        this.runs = runs;
        this.runService = runService;
    }

    /**
     * Queues the next attempt of {@code finished} when it FAILED (not CANCELLED or SKIPPED, and
     * no cancel was requested) with a retryable failure type (docs/failures.md: a configuration
     * error is never retried; runs without a type are), its pipeline still exists, its attempt number is below the
     * pipeline's {@code retry.maxAttempts}, and no retry of it exists yet. The retry is a QUEUED
     * run with trigger RETRY, {@code attempt + 1}, {@code retry_of} = the failed run and
     * {@code not_before} = now + {@link RetryPolicy#delay}(attempt). Safe to call twice or from
     * several replicas: the state ID's single active slot admits one retry.
     *
     * @param finished a run that just reached a terminal status
     * @return the retry's id, when one was queued
     */
    public Optional<UUID> onRunFinished(Run finished) {
        if (finished.status != RunStatus.FAILED || finished.cancelRequestedAt != null || finished.pipelineId == null
                || Boolean.FALSE.equals(finished.failureRetryable)) {
            return Optional.empty();
        }
        Pipeline p = pipelines.findById(finished.pipelineId);
        if (p == null) {
            return Optional.empty();
        }
        RetryPolicy policy = RetryPolicy.of(p);
        if (!policy.retriesAfter(finished.attempt) || runs.count("retryOf", finished.id) > 0) {
            return Optional.empty();
        }
        Duration delay = policy.delay(finished.attempt);
        Optional<UUID> retry = runService.queueRetry(finished, p, delay);
        if (retry.isPresent()) {
            LOG.infof("Pipeline '%s': run %s failed (attempt %d of %d); retry %s queued in %s", p.name, finished.id,
                    finished.attempt, policy.maxAttempts(), retry.get(), delay);
        } else {
            LOG.infof("Pipeline '%s': run %s failed but its state ID is busy; no retry queued", p.name, finished.id);
        }
        return retry;
    }
}
