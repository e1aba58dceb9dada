package io.tapline.connector;

import java.util.List;

/**
 * What {@link ConnectorProcess#terminate} did, by process ID.
 *
 * @param signalled every process that was sent SIGTERM: the connector process and the descendants
 *                  found before and while signalling, in the order they were signalled
 * @param killed    the processes still running when the grace period ended, which were sent
 *                  SIGKILL (a subset of {@code signalled}, plus descendants that appeared during
 *                  the grace period)
 * @param remaining the processes that still existed when terminate gave up waiting: normally
 *                  empty; otherwise exited processes that nobody reaped yet (zombies, e.g. when the
 *                  service runs as PID 1 without an init) or processes stuck in uninterruptible I/O
 */
public record Termination(List<Long> signalled, List<Long> killed, List<Long> remaining) {

    /** Nothing was running: nothing was signalled. */
    public static final Termination NOTHING = new Termination(List.of(), List.of(), List.of());

    /** Copies the lists. */
    public Termination {
        signalled = List.copyOf(signalled);
        killed = List.copyOf(killed);
        remaining = List.copyOf(remaining);
    }

    /** True when some process had to be killed with SIGKILL. */
    public boolean neededKill() {
        return !killed.isEmpty();
    }

    /** True when every process is gone. */
    public boolean complete() {
        return remaining.isEmpty();
    }
}
