package io.tapline.connector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Terminates a process together with all its descendants: SIGTERM to everyone, a grace period,
 * SIGKILL to whoever still runs, then waiting until all are gone.
 *
 * <p>Descendants are found through {@link ProcessHandle#descendants()}, which follows parent
 * links. A process whose parent dies is re-parented (to init or a subreaper) and can no longer be
 * found from the root, so the tree is snapshotted before anyone is signalled, and every member
 * still alive is searched again for new children after each signalling round and before SIGKILL.
 * A process that forks and exits between two searches can still escape (an inherent race without
 * process groups or cgroups, which the JDK does not offer).
 *
 * <p>An exited process that was not reaped yet (a zombie) counts as exited for the grace period
 * and SIGKILL decisions (Linux: read from {@code /proc/<pid>/stat}); terminate then waits a
 * bounded time for it to be reaped, so that afterwards {@link ProcessHandle#isAlive()} is false.
 */
final class ProcessTree {

    /** Signalling rounds while looking for new descendants; each round only repeats if a new one was found. */
    private static final int MAX_ROUNDS = 16;
    /** How long SIGKILL may take to end processes (it cannot be ignored; only uninterruptible I/O delays it). */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final long FIRST_POLL_NANOS = 2_000_000L;
    private static final long MAX_POLL_NANOS = 50_000_000L;

    private ProcessTree() {
    }

    /**
     * Terminates {@code root} and its descendants.
     *
     * @param grace    how long processes get to exit after SIGTERM
     * @param reapWait how long to wait, after everyone exited, for exited processes to be reaped
     * @throws InterruptedException if interrupted while waiting; processes already signalled stay signalled
     */
    static Termination terminate(ProcessHandle root, Duration grace, Duration reapWait) throws InterruptedException {
        return terminate(root, grace, reapWait, new LinkedHashMap<>());
    }

    /**
     * As {@link #terminate(ProcessHandle, Duration, Duration)}, recording every member of the tree
     * it finds in {@code known} (thread-safe when another thread reads it, e.g. {@link #kill}).
     */
    static Termination terminate(ProcessHandle root, Duration grace, Duration reapWait, Map<Long, ProcessHandle> known)
            throws InterruptedException {
        known.put(root.pid(), root);

        List<Long> signalled = new ArrayList<>();
        signalRounds(known, signalled, false);
        if (signalled.isEmpty()) {
            // Nothing was running any more; at most an exit that is about to be reaped.
            awaitNone(known, ProcessHandle::isAlive, reapWait);
            return new Termination(List.of(), List.of(), present(known));
        }
        awaitNone(known, ProcessTree::isRunning, grace);

        List<Long> killed = new ArrayList<>();
        signalRounds(known, killed, true);
        if (!killed.isEmpty()) {
            awaitNone(known, ProcessTree::isRunning, KILL_WAIT);
        }
        awaitNone(known, ProcessHandle::isAlive, reapWait);
        return new Termination(signalled, killed, present(known));
    }

    /**
     * Sends SIGKILL at once to {@code root}, its descendants and every still running member of
     * {@code known} (the tree a {@link #terminate} in progress found, which may hold descendants
     * re-parented away from a root that already exited), searching for new descendants between
     * rounds; does not wait for them to end. A stale handle is never signalled: the JDK checks a
     * process's start time before signalling it, so a reused process ID is safe.
     *
     * @param known members found so far; the ones found here are added
     * @return the process IDs sent SIGKILL, in order
     */
    static List<Long> kill(ProcessHandle root, Map<Long, ProcessHandle> known) {
        if (root.isAlive()) {
            known.putIfAbsent(root.pid(), root);
        }
        List<Long> killed = new ArrayList<>();
        signalRounds(known, killed, true);
        return killed;
    }

    /**
     * Looks for new descendants of every live known process, then signals every running known
     * process not signalled yet; repeats while the search after signalling turns up new ones. The
     * search comes first because a killed parent's children are re-parented out of reach.
     */
    private static void signalRounds(Map<Long, ProcessHandle> known, List<Long> signalled, boolean force) {
        addDescendants(known);
        for (int round = 0; round < MAX_ROUNDS; round++) {
            for (ProcessHandle process : List.copyOf(known.values())) {
                if (!signalled.contains(process.pid()) && isRunning(process)) {
                    boolean sent = force ? process.destroyForcibly() : process.destroy();
                    if (sent) {
                        signalled.add(process.pid());
                    }
                }
            }
            if (!addDescendants(known)) {
                return;
            }
        }
    }

    /** Adds the descendants of every live known process; true if any was new. */
    private static boolean addDescendants(Map<Long, ProcessHandle> known) {
        boolean found = false;
        for (ProcessHandle process : List.copyOf(known.values())) {
            if (process.isAlive()) {
                for (ProcessHandle d : (Iterable<ProcessHandle>) process.descendants()::iterator) {
                    found |= known.putIfAbsent(d.pid(), d) == null;
                }
            }
        }
        return found;
    }

    /** Waits until no known process matches {@code state}, or {@code timeout} passed. */
    private static void awaitNone(Map<Long, ProcessHandle> known, Predicate<ProcessHandle> state, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = FIRST_POLL_NANOS;
        for (;;) {
            if (known.values().stream().noneMatch(state)) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
        }
    }

    private static List<Long> present(Map<Long, ProcessHandle> known) {
        return known.values().stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList();
    }

    /** Alive and not a zombie: still executing, so still able to react to signals. */
    static boolean isRunning(ProcessHandle process) {
        return process.isAlive() && !isZombie(process.pid());
    }

    /** True if {@code /proc/<pid>/stat} says the process is a zombie; false when unknown. */
    static boolean isZombie(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return false;
        }
        // "pid (command) state ...": the command may contain spaces and parentheses.
        int close = stat.lastIndexOf(')');
        return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
    }
}
