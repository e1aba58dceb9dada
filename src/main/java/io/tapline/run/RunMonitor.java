package io.tapline.run;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import io.tapline.common.config.TaplineConfig;
import io.tapline.run.exec.RunExecutor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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

    /** Fire site of {@link RunEnded} (issue 21): inside the reaper's transaction. */
    @jakarta.inject.Inject
    jakarta.enterprise.event.Event<RunEnded> ended;

    public RunMonitor(RunExecutor executor, RunRepository runs, TaplineConfig config, Clock clock) {
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
     * Fails every RUNNING run whose heartbeat is older than the heartbeat timeout.
     *
     * @return the reaped run ids
     */
    public List<UUID> reap(Instant now) {
        try {
            OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
            List<UUID> reaped = QuarkusTransaction.requiringNew().call(() -> {
                List<UUID> ids = runs.reapStale(at.minus(config.runner().heartbeatTimeout()), at, HEARTBEAT_LOST);
                ids.forEach(id -> ended.fire(new RunEnded(id)));
                return ids;
            });
            for (UUID id : reaped) {
                LOG.warnf("Run %s failed: %s", id, HEARTBEAT_LOST);
            }
            return reaped;
        } catch (RuntimeException e) {
            LOG.warnf("Reaper failed: %s", e.getMessage());
            return List.of();
        }
    }

    void onCancel(@Observes(during = TransactionPhase.AFTER_SUCCESS) RunService.CancelRequested event) {
        executor.cancelLocal(event.id(), event.reason());
    }
}
