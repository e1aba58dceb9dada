package io.tapline.run.exec;

import io.quarkus.runtime.StartupEvent;
import io.tapline.common.config.TaplineConfig;
import io.tapline.connector.ConnectorProcess;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Fences this replica's runs whose heartbeat it cannot store ({@link FenceTimes}): on a thread of
 * its own, every {@value #TICK_MILLIS} ms, independent of the run threads (which may be blocked in
 * a database call), it asks a run to stop once its last stored heartbeat is older than two thirds
 * of {@code tapline.runner.heartbeat-timeout} (the run's {@link ProcessWatch} then sends SIGTERM,
 * with the grace cut to the kill point), and sends SIGKILL to every process of the run still alive
 * at {@code heartbeat-timeout - fence-kill-margin}, whatever stop (cancel, timeout, shutdown) and
 * grace are in progress. The tick touches no database and no other bean than the run registry.
 *
 * <p>At start, a replica that executes runs refuses settings that cannot keep the promise
 * ({@link FenceTimes#check}) and warns when the terminate grace is longer than a fenced run gets.
 */
@ApplicationScoped
public class RunFence {

    private static final Logger LOG = Logger.getLogger(RunFence.class);
    static final long TICK_MILLIS = 100;

    private final ActiveRuns active;
    private final Clock clock;
    private final FenceTimes times;
    private final boolean executesRuns;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "run-fence");
        t.setDaemon(true);
        return t;
    });

    public RunFence(ActiveRuns active, TaplineConfig config, Clock clock) {
        this.active = active;
        this.clock = clock;
        this.times = FenceTimes.of(config.runner());
        this.executesRuns = config.runner().maxConcurrentRuns() > 0 || config.runner().singleRun();
    }

    /** Checks the settings and starts the fence; fails the start when the settings cannot keep the promise. */
    void onStart(@Observes StartupEvent event) {
        if (!executesRuns) {
            return;
        }
        times.check();
        times.graceWarning().ifPresent(LOG::warn);
        ticker.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        ticker.shutdownNow();
    }

    /** The fence times in force. */
    FenceTimes times() {
        return times;
    }

    /** One round over this replica's runs; never throws (the ticker would stop). */
    void tick() {
        try {
            Instant now = clock.instant();
            for (ActiveRun ctx : active.all()) {
                fence(ctx, now);
            }
        } catch (RuntimeException e) {
            LOG.warnf("Fencing check failed: %s", RunThreads.rootMessage(e));
        }
    }

    private void fence(ActiveRun ctx, Instant now) {
        Instant last = ctx.lastHeartbeat;
        Duration since = Duration.between(last, now);
        if (since.compareTo(times.fenceAfter()) > 0 && ctx.requestStop(ActiveRun.StopReason.FENCED,
                "the database could not be reached for " + since.toSeconds() + " s (tapline.runner.heartbeat-timeout"
                        + " is " + times.heartbeatTimeout().toSeconds() + " s): this replica stopped the run's"
                        + " processes before another replica could take the run over")) {
            LOG.warnf("Run %s fenced: no heartbeat stored for %d s", ctx.id, since.toSeconds());
        }
        if (now.isBefore(times.killAt(last))) {
            return;
        }
        Map<ConnectorProcess, List<Long>> killed = ctx.supervisor.killAll();
        if (killed.isEmpty()) {
            return;
        }
        StringBuilder pids = new StringBuilder();
        killed.forEach((p, k) -> pids.append(pids.isEmpty() ? "" : ", ").append(p.component()).append(" pid(s) ")
                .append(k));
        LOG.warnf("Run %s: SIGKILL %s, %d s after the last stored heartbeat (tapline.runner.heartbeat-timeout %d s,"
                + " fence-kill-margin %d s)", ctx.id, pids, since.toSeconds(), times.heartbeatTimeout().toSeconds(),
                times.killMargin().toSeconds());
        ctx.log.line("service", "SIGKILL " + pids + ": no heartbeat stored for " + since.toSeconds()
                + " s; every process of the run must be dead before tapline.runner.heartbeat-timeout ("
                + times.heartbeatTimeout().toSeconds() + " s)");
    }
}
