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
    /** Failed state stores in a row (database unreachable); only the first of a streak is logged. */
    volatile int persistFailures;

    ActiveRun(UUID id, RunLog log, Instant startedAt) {
        this.id = id;
        this.log = log;
        this.startedAt = startedAt;
    }

    /** Records the first stop request (the run's thread polls it); later requests are ignored. */
    boolean requestStop(StopReason reason, String message) {
        return stop.compareAndSet(null, new Stop(reason, message));
    }
}
