package io.tapline.run.exec;

import io.tapline.connector.ProcessSupervisor;
import io.tapline.connector.Relay;
import io.tapline.run.RunLog;

import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What this replica knows about one of its running runs: its processes, relay, state checkpointer
 * and log, and the stop request (cancel, timeout, shutdown, lost ownership) if any. Shared between
 * the run's thread and the heartbeat.
 */
final class ActiveRun {

    /** Why a run is being stopped before its processes ended by themselves. */
    enum StopReason {
        CANCELLED, TIMED_OUT, SHUTDOWN, LOST
    }

    /** A stop request. */
    record Stop(StopReason reason, String message) {
    }

    final UUID id;
    final RunLog log;
    final Instant startedAt;
    /** Starts and stops the run's processes. */
    final ProcessSupervisor supervisor = new ProcessSupervisor();
    final AtomicReference<Stop> stop = new AtomicReference<>();
    volatile Relay relay;
    volatile StateCheckpointer checkpointer;
    /** Set once the processes are being terminated. */
    volatile boolean stopping;

    ActiveRun(UUID id, RunLog log, Instant startedAt) {
        this.id = id;
        this.log = log;
        this.startedAt = startedAt;
    }

    /** The run's stages so far: {name, status, startedAt, endedAt}, in order. */
    final com.fasterxml.jackson.databind.node.ArrayNode stages =
            com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();

    /** Records a finished stage. */
    synchronized void stage(String name, Instant started, Instant ended, String status) {
        stages.addObject().put("name", name).put("status", status).put("startedAt", started.toString())
                .put("endedAt", ended.toString());
    }

    /** Records the first stop request (the run's thread polls it); later requests are ignored. */
    boolean requestStop(StopReason reason, String message) {
        return stop.compareAndSet(null, new Stop(reason, message));
    }
}
