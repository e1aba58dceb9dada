package io.tapline.run.exec;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.connector.StreamCounts;
import io.tapline.run.Run;
import io.tapline.run.RunMetrics;
import io.tapline.run.RunRepository;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The heartbeat and cancel side of this replica's runs: which runs it executes, their heartbeat
 * (with the log tail and live counts), cancel requests, ownership lost to another replica's reaper,
 * fencing, and the shutdown flag.
 *
 * <p>The time of each run's last stored heartbeat ({@code ActiveRun.lastHeartbeat}: the time
 * written, taken before the write) is what {@link RunFence} fences runs by.
 */
@ApplicationScoped
@Startup
public class ActiveRuns {

    private static final Logger LOG = Logger.getLogger(ActiveRuns.class);

    private final RunRepository runs;
    private final InstanceId instance;
    private final TaplineConfig config;
    private final Clock clock;
    private final RunMetrics metrics;
    private final Map<UUID, ActiveRun> active = new ConcurrentHashMap<>();
    /** Runs inside the executor, from the first line (before their processes exist) to the last. */
    private final Set<UUID> executing = ConcurrentHashMap.newKeySet();
    private volatile boolean shuttingDown;
    private volatile long shutdownDeadline;
    private volatile boolean heartbeatFailing;
    /** Runs whose end could not be recorded before the shutdown deadline (database unreachable). */
    private final Set<UUID> endsGivenUp = ConcurrentHashMap.newKeySet();

    public ActiveRuns(RunRepository runs, InstanceId instance, TaplineConfig config, Clock clock, RunMetrics metrics) {
        this.runs = runs;
        this.instance = instance;
        this.config = config;
        this.clock = clock;
        this.metrics = metrics;
    }

    @PostConstruct
    void registerGauges() {
        metrics.activeRuns(active::size);
    }

    /** A run enters the executor. */
    void enter(UUID id) {
        executing.add(id);
    }

    /** A run leaves the executor (its end is recorded, or given up). */
    void leave(UUID id) {
        executing.remove(id);
    }

    /** Runs inside the executor. */
    Set<UUID> executing() {
        return Set.copyOf(executing);
    }

    /** Registers a run whose log is open; on a shutting-down service it is asked to stop at once. */
    void register(ActiveRun ctx) {
        active.put(ctx.id, ctx);
        if (shuttingDown) {
            ctx.requestStop(ActiveRun.StopReason.SHUTDOWN, RunExecutor.SHUTDOWN_REASON);
        }
    }

    /** Forgets a run (after its end was recorded). */
    void remove(UUID id) {
        active.remove(id);
    }

    /** The registered runs (a snapshot), for {@link RunFence}. */
    Collection<ActiveRun> all() {
        return List.copyOf(active.values());
    }

    /** Ids of the runs this replica is executing or finishing. */
    public Set<UUID> ids() {
        return Set.copyOf(active.keySet());
    }

    /** Asks a local run to stop (cancel); true when this replica runs it. */
    boolean cancelLocal(UUID id, String reason) {
        ActiveRun ctx = active.get(id);
        return ctx != null && ctx.requestStop(ActiveRun.StopReason.CANCELLED, reason);
    }

    /** Marks the service as shutting down and asks every run to stop. */
    void shutdown(long deadline) {
        shutdownDeadline = deadline;
        shuttingDown = true;
        stopAllForShutdown();
    }

    /** Asks every registered run to stop because the service shuts down (again: late registrations). */
    void stopAllForShutdown() {
        for (ActiveRun ctx : active.values()) {
            ctx.requestStop(ActiveRun.StopReason.SHUTDOWN, RunExecutor.SHUTDOWN_REASON);
        }
    }

    boolean shuttingDown() {
        return shuttingDown;
    }

    /** Notes that the end of a run could not be recorded before the shutdown deadline. */
    void endGivenUp(UUID id) {
        endsGivenUp.add(id);
    }

    /** The runs whose end could not be recorded before the shutdown deadline. */
    Set<UUID> endsGivenUp() {
        return Set.copyOf(endsGivenUp);
    }

    /** The {@link System#nanoTime()} by which the shutdown gives up waiting; 0 before it. */
    long shutdownDeadline() {
        return shuttingDown ? shutdownDeadline : 0L;
    }

    /**
     * The deadline ({@link System#nanoTime()}) of retried writes that take {@code retry}: that from
     * now, or the shutdown deadline when the service is stopping.
     */
    long deadline(Duration retry) {
        long d = System.nanoTime() + retry.toNanos();
        return shuttingDown ? Math.min(d, shutdownDeadline) : d;
    }

    /**
     * Refreshes the heartbeat, log tail and live counts of this replica's runs, and picks up cancel
     * requests. A run that is no longer RUNNING and owned here (the reaper of another replica
     * failed it) is stopped.
     */
    void heartbeat() {
        if (active.isEmpty()) {
            return;
        }
        Collection<UUID> ids = new HashSet<>(active.keySet());
        try {
            // The time written is the one fenced by: another replica's reaper compares it, not the commit's.
            OffsetDateTime stamp = OffsetDateTime.now(clock);
            List<UUID> alive = QuarkusTransaction.requiringNew().call(() -> beat(ids, stamp));
            alive.forEach(id -> {
                ActiveRun ctx = active.get(id);
                if (ctx != null && ctx.lastHeartbeat.isBefore(stamp.toInstant())) {
                    ctx.lastHeartbeat = stamp.toInstant();
                }
            });
            if (heartbeatFailing) {
                heartbeatFailing = false;
                LOG.info("Heartbeat stored again");
            }
        } catch (RuntimeException e) {
            if (!heartbeatFailing) {
                heartbeatFailing = true;
                LOG.warnf("Heartbeat failed (repeats are logged at DEBUG until it works again): %s",
                        RunThreads.rootMessage(e));
            } else {
                LOG.debugf("Heartbeat failed: %s", RunThreads.rootMessage(e));
            }
        }
    }

    private List<UUID> beat(Collection<UUID> ids, OffsetDateTime stamp) {
        List<UUID> alive = runs.heartbeat(ids, instance.get(), stamp);
        for (UUID id : ids) {
            ActiveRun ctx = active.get(id);
            if (ctx == null) {
                continue;
            }
            if (!alive.contains(id)) {
                ctx.requestStop(ActiveRun.StopReason.LOST, "the run was failed by another replica (heartbeat lost)");
                continue;
            }
            StreamCounts counts = ctx.counts();
            runs.recordProgress(id, ctx.log.tail(), ctx.log.totalBytes(), Jsons.write(RunStateWriter.countsJson(counts)),
                    counts.total().records(), counts.bytes());
        }
        for (UUID id : runs.cancelRequested(alive)) {
            ActiveRun ctx = active.get(id);
            if (ctx != null) {
                Run r = runs.findById(id);
                ctx.requestStop(ActiveRun.StopReason.CANCELLED, r.cancelReason == null ? "cancelled" : r.cancelReason);
            }
        }
        return alive;
    }
}
