package io.tapline.run.exec;

import io.tapline.common.config.TaplineConfig;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.Termination;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The one process watch loop of a run, used by every step that runs processes (catalog discovery,
 * extract-load, transform, {@code meltano run}): it polls the step until it is done, enforces the
 * run's deadline and the step's own, fences the run, and on a stop request (cancel, timeout,
 * shutdown, lost ownership, fencing) sends SIGTERM to every process of the run, SIGKILL after the
 * grace period.
 *
 * <p>Fencing: when this replica has not stored the run's heartbeat for two thirds of
 * {@code tapline.runner.heartbeat-timeout} (the database is unreachable), {@link RunFence} asks
 * the run to stop; the SIGTERM grace is then cut to the kill point ({@link FenceTimes#fencedGrace}),
 * where {@link RunFence} kills whatever still runs, so that a reaped run never has live processes;
 * the run keeps its last stored state and records its true outcome (failure type
 * {@code state_store}) once the database is back.
 */
@ApplicationScoped
public class ProcessWatch {

    private static final Logger LOG = Logger.getLogger(ProcessWatch.class);
    static final Duration POLL = Duration.ofMillis(100);

    /** A step being watched. */
    interface Step {
        /** Waits up to {@code poll} for the step to end; true once it has. */
        boolean awaitDone(Duration poll);

        /** Called after each wait, also the last one ({@code done} true): persist state, check the relay. */
        default void tick(boolean done) {
        }
    }

    private final TaplineConfig config;
    private final Clock clock;
    private final FenceTimes fence;

    public ProcessWatch(TaplineConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.fence = FenceTimes.of(config.runner());
    }

    /** Watches a step under the run's deadline only. */
    void watch(ActiveRun ctx, Step step) {
        watch(ctx, step, null, null);
    }

    /**
     * Watches a step until it is done.
     *
     * @param stepDeadline a deadline of the step's own, or null
     * @param stepTimeout the stop message when the step's deadline passes
     */
    void watch(ActiveRun ctx, Step step, Instant stepDeadline, String stepTimeout) {
        while (true) {
            boolean done = step.awaitDone(POLL);
            step.tick(done);
            if (done) {
                return;
            }
            Instant now = clock.instant();
            if (ctx.deadline != null && now.isAfter(ctx.deadline)) {
                ctx.requestStop(ActiveRun.StopReason.TIMED_OUT, "timed out after "
                        + Duration.between(ctx.startedAt, ctx.deadline).toSeconds() + " s");
            }
            if (stepDeadline != null && now.isAfter(stepDeadline)) {
                ctx.requestStop(ActiveRun.StopReason.TIMED_OUT, stepTimeout);
            }
            ActiveRun.Stop stop = ctx.stop.get();
            if (stop != null && !ctx.stopping) {
                ctx.stopping = true;
                ctx.log.line("service", "stopping: " + stop.message() + "; SIGTERM to every process, SIGKILL after "
                        + grace(ctx).toSeconds() + " s");
                LOG.infof("Run %s stopping: %s", ctx.id, stop.message());
                RunThreads.start("stop-" + ctx.id, () -> stopAll(ctx));
            }
        }
    }

    /** SIGTERM to every process of the run and their descendants, SIGKILL after the grace; logs kills. */
    void stopAll(ActiveRun ctx) {
        Duration grace = grace(ctx);
        try {
            Map<ConnectorProcess, Termination> result = ctx.supervisor.terminateAll(grace);
            result.forEach((p, t) -> {
                if (t.neededKill()) {
                    ctx.log.line("service", "SIGKILL after " + grace.toSeconds() + " s grace: " + p.component()
                            + " pid(s) " + t.killed());
                }
                if (!t.remaining().isEmpty()) {
                    ctx.log.line("service", "still alive after SIGKILL: " + p.component() + " pid(s) " + t.remaining());
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM to one process, SIGKILL after the terminate grace. */
    void terminate(ConnectorProcess p) {
        try {
            p.terminate(config.runner().terminateGrace());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for a process to end by itself for the terminate grace, else terminates it. */
    void awaitOrTerminate(ConnectorProcess p) {
        if (!RunThreads.waitFor(p, config.runner().terminateGrace())) {
            terminate(p);
        }
    }

    /**
     * Time between SIGTERM and SIGKILL for the run's processes: the shutdown grace on service
     * shutdown; for a fenced run the terminate grace cut to the fence's kill point.
     */
    Duration grace(ActiveRun ctx) {
        ActiveRun.Stop stop = ctx.stop.get();
        if (stop != null && stop.reason() == ActiveRun.StopReason.SHUTDOWN) {
            return shutdownGrace();
        }
        if (stop != null && stop.reason() == ActiveRun.StopReason.FENCED) {
            return fence.fencedGrace(ctx.lastHeartbeat, clock.instant());
        }
        return config.runner().terminateGrace();
    }

    /** {@code tapline.runner.shutdown-grace}, else the terminate grace. */
    Duration shutdownGrace() {
        return config.runner().shutdownGrace().orElse(config.runner().terminateGrace());
    }
}
