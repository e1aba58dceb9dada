package io.tapline.run.exec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tapline.common.json.Jsons;
import io.tapline.connector.ProcessSupervisor;
import io.tapline.connector.Relay;
import io.tapline.connector.StreamCounts;
import io.tapline.run.RunLog;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What this replica knows about one of its running runs: its processes, relay, state checkpointer
 * and log, its deadline, and the stop request (cancel, timeout, shutdown, lost ownership, fencing)
 * if any. Shared between the run's thread, the heartbeat and the shutdown.
 */
final class ActiveRun {

    /** Why a run is being stopped before its processes ended by themselves. */
    enum StopReason {
        /** An operator cancelled it (or a forced run superseded it). */
        CANCELLED,
        /** It passed its pipeline's {@code timeoutSeconds}, or a step passed its own deadline. */
        TIMED_OUT,
        /** The service is shutting down. */
        SHUTDOWN,
        /** Another replica failed it (its heartbeat was lost). */
        LOST,
        /** This replica could not write its heartbeat for most of the heartbeat timeout. */
        FENCED
    }

    /** A stop request. */
    record Stop(StopReason reason, String message) {
    }

    final UUID id;
    final RunLog log;
    final Instant startedAt;
    /** When the run times out ({@code timeoutSeconds} after its start), or null. */
    final Instant deadline;
    /** Starts and stops the run's processes (discovery, connectors, transform, meltano). */
    final ProcessSupervisor supervisor = new ProcessSupervisor();
    final AtomicReference<Stop> stop = new AtomicReference<>();
    volatile Relay relay;
    volatile StateCheckpointer checkpointer;
    /** Counts reported by the executor when there is no relay ({@code meltano}: from METRIC lines), or null. */
    volatile StreamCounts reportedCounts;
    /** Warnings raised while the run executes (added to the run's warnings at the end). */
    final List<String> warnings = new CopyOnWriteArrayList<>();
    /** Set once the processes are being terminated. */
    volatile boolean stopping;
    /** Failed state stores in a row (database unreachable); only the first of a streak is logged. */
    volatile int persistFailures;
    /** When this replica last stored the run's heartbeat (or registered the run). */
    volatile Instant lastHeartbeat;
    /** The run's stages so far: {name, status, startedAt, endedAt}, in order. */
    private final ArrayNode stages = JsonNodeFactory.instance.arrayNode();

    ActiveRun(UUID id, RunLog log, Instant startedAt, Integer timeoutSeconds) {
        this.id = id;
        this.log = log;
        this.startedAt = startedAt;
        this.deadline = timeoutSeconds == null ? null : startedAt.plusSeconds(timeoutSeconds);
        this.lastHeartbeat = startedAt;
    }

    /** Records a finished stage. */
    synchronized void stage(String name, Instant started, Instant ended, String status) {
        stages.addObject().put("name", name).put("status", status).put("startedAt", started.toString())
                .put("endedAt", ended.toString());
    }

    /** The stages as JSON text. */
    synchronized String stagesJson() {
        return Jsons.write(stages);
    }

    /** The run's counts so far: the relay's, else the reported ones, else none. */
    StreamCounts counts() {
        Relay r = relay;
        if (r != null) {
            return r.counts();
        }
        StreamCounts reported = reportedCounts;
        return reported == null ? StreamCounts.EMPTY : reported;
    }

    /**
     * True once the run is asked to stop; a run past its deadline is asked to stop first
     * ({@code timed out after N s}). For waits outside {@link ProcessWatch} (another discovery, a
     * plugin's {@code --about}).
     */
    boolean stopDue(Instant now) {
        if (deadline != null && now.isAfter(deadline)) {
            requestStop(StopReason.TIMED_OUT, "timed out after " + Duration.between(startedAt, deadline).toSeconds()
                    + " s");
        }
        return stop.get() != null;
    }

    /** Records the first stop request (the run's thread polls it); later requests are ignored. */
    boolean requestStop(StopReason reason, String message) {
        return stop.compareAndSet(null, new Stop(reason, message));
    }
}
