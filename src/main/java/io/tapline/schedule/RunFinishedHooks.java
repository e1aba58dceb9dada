package io.tapline.schedule;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.run.Run;
import io.tapline.run.RunRepository;
import io.tapline.run.RunFinished;
import io.tapline.run.RunStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

/**
 * What happens after a run reached a terminal status through the one end path (executed here,
 * reaped, released; {@link RunFinished}, after the commit): a retry is queued
 * when the pipeline's retry policy asks for one ({@link RetryPlanner}), and a pipeline that failed
 * too often in a row pauses itself ({@link ScheduleService#onRunFinished}). Each in its own
 * transaction, so one failing never blocks the other. Both act on FAILED runs only
 * ({@link RetryPlanner#onRunFinished}, {@link ScheduleService#onRunFinished}), so the run of any other
 * terminal status is not read again.
 */
@ApplicationScoped
public class RunFinishedHooks {

    private static final Logger LOG = Logger.getLogger(RunFinishedHooks.class);

    private final RunRepository runs;
    private final RetryPlanner retries;
    private final ScheduleService schedules;

    public RunFinishedHooks(RunRepository runs, RetryPlanner retries, ScheduleService schedules) {
        this.runs = runs;
        this.retries = retries;
        this.schedules = schedules;
    }

    void onFinished(@Observes(during = TransactionPhase.AFTER_SUCCESS) RunFinished event) {
        if (event.status() != RunStatus.FAILED) {
            return;
        }
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                Run run = runs.findById(event.runId());
                if (run != null) {
                    retries.onRunFinished(run).ifPresent(id -> LOG.infof("Run %s failed; retry %s queued", run.id, id));
                }
            });
        } catch (RuntimeException e) {
            LOG.warnf("Queuing a retry of run %s failed: %s", event.runId(), e.getMessage());
        }
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                Run run = runs.findById(event.runId());
                if (run != null) {
                    schedules.onRunFinished(run).ifPresent(reason -> LOG.warnf("Pipeline %s paused: %s",
                            run.pipelineName, reason));
                }
            });
        } catch (RuntimeException e) {
            LOG.warnf("Checking the failure streak after run %s failed: %s", event.runId(), e.getMessage());
        }
    }
}
