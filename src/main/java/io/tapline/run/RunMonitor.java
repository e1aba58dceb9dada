package io.tapline.run;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import io.tapline.common.config.TaplineConfig;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.run.exec.RunExecutor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The safety nets of running runs: this replica's heartbeat (which also carries cancel requests
 * and the log tail), and the reaper that any replica runs to fail runs whose owner stopped
 * heartbeating ("heartbeat lost"). Both are idempotent guarded updates, safe on every replica.
 */
@ApplicationScoped
public class RunMonitor {

    private static final Logger LOG = Logger.getLogger(RunMonitor.class);
    /** The reason recorded on reaped runs. */
    public static final String HEARTBEAT_LOST = "heartbeat lost: the service instance running it stopped responding";

    private final RunExecutor executor;
    private final RunRepository runs;
    private final TaplineConfig config;
    private final Clock clock;
    private final RunEndService ends;

    public RunMonitor(RunExecutor executor, RunRepository runs, TaplineConfig config, Clock clock,
                      RunEndService ends) {
        this.ends = ends;
        this.executor = executor;
        this.runs = runs;
        this.config = config;
        this.clock = clock;
    }

    @Scheduled(every = "{tapline.runner.heartbeat-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void heartbeat() {
        executor.heartbeat();
    }

    @Scheduled(every = "{tapline.runner.reaper-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void reapTick() {
        reap(clock.instant());
    }

    /**
     * Fails every RUNNING run whose heartbeat is older than the heartbeat timeout, each through the
     * one end path ({@link RunEndService}, failure type {@code lost_instance}, retryable) in its own
     * transaction, so retries and {@code pauseAfterFailures} apply. This replica's own runs are left
     * alone: it is executing or finishing them and records their true outcome itself.
     *
     * @return the reaped run ids
     */
    public List<UUID> reap(Instant now) {
        List<UUID> reaped = new ArrayList<>();
        try {
            OffsetDateTime deadline = now.atOffset(ZoneOffset.UTC).minus(config.runner().heartbeatTimeout());
            List<UUID> stale = QuarkusTransaction.requiringNew().call(() ->
                    runs.staleRunning(deadline, executor.running()));
            for (UUID id : stale) {
                try {
                    if (ends.end(id, new RunEnd.Guard(RunStatus.RUNNING, null, deadline), RunEnd.of(RunStatus.FAILED,
                            FailedComponent.SERVICE, FailureType.LOST_INSTANCE, HEARTBEAT_LOST))) {
                        LOG.warnf("Run %s failed: %s", id, HEARTBEAT_LOST);
                        reaped.add(id);
                    }
                } catch (RuntimeException e) {
                    LOG.warnf("Reaping run %s failed: %s", id, e.getMessage());
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("Reaper failed: %s", e.getMessage());
        }
        return reaped;
    }

    void onCancel(@Observes(during = TransactionPhase.AFTER_SUCCESS) RunService.CancelRequested event) {
        executor.cancelLocal(event.id(), event.reason());
    }
}
