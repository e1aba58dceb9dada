package io.tapline.connector;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A running connector (tap, target, mapper...) started by {@link ProcessSupervisor#start}: its
 * stdin and stdout pipes for the caller, its stderr drained into the supervisor's sink, and a
 * {@link #terminate} that leaves no descendant behind.
 *
 * <p>Thread-safe. {@link #terminate} calls are serialized; {@link #kill} is not serialized with them.
 */
public final class ConnectorProcess implements AutoCloseable {

    /** The grace period {@link #close()} gives a process that still runs. */
    public static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

    /** How long the exit status of a reaped process may take to reach the {@link Process} object. */
    private static final Duration EXIT_STATUS_WAIT = Duration.ofSeconds(5);

    private final ProcessSpec spec;
    private final List<String> command;
    private final Process process;
    private final StderrPump stderr;
    private final Duration reapWait;
    private final Object terminating = new Object();
    /** Every member of the process tree found so far by {@link #terminate} or {@link #kill}. */
    private final Map<Long, ProcessHandle> tree = new ConcurrentHashMap<>();

    ConnectorProcess(ProcessSpec spec, List<String> command, Process process, StderrPump stderr, Duration reapWait) {
        this.spec = spec;
        this.command = List.copyOf(command);
        this.process = process;
        this.stderr = stderr;
        this.reapWait = reapWait;
    }

    /** The component name, e.g. {@code extractor}. */
    public String component() {
        return spec.component();
    }

    /** The command it was started with: the spec's, with the executable as found on the spec's {@code PATH}. */
    public List<String> command() {
        return command;
    }

    /** The specification it was started from (its command as given). */
    public ProcessSpec spec() {
        return spec;
    }

    /** The OS process ID. */
    public long pid() {
        return process.pid();
    }

    /** The process's handle (e.g. for its descendants). */
    public ProcessHandle handle() {
        return process.toHandle();
    }

    /**
     * The process's stdin. Buffered: flush after writing, close to signal the end of the input.
     * Writing fails with an {@link IOException} once the process closed its end ("Broken pipe").
     */
    public OutputStream stdin() {
        return process.getOutputStream();
    }

    /** The process's stdout; end of stream once the process and every descendant sharing it closed it. */
    public InputStream stdout() {
        return process.getInputStream();
    }

    /** True while the process has not exited. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the process to exit.
     *
     * @param timeout the longest wait; zero or negative checks without waiting
     * @return true if it exited, false if the timeout passed first
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    }

    /** Completes with this process when it exited. */
    public CompletableFuture<ConnectorProcess> onExit() {
        return process.onExit().thenApply(p -> this);
    }

    /**
     * The exit code once the process exited: its status, or 128 + the signal number when a signal
     * ended it (143 for SIGTERM, 137 for SIGKILL); empty while it runs.
     */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /**
     * Waits until every stderr line was handed to the sink, which happens once stderr reaches its
     * end: when the process and every descendant holding the pipe have exited or closed it.
     *
     * @return true when drained, false if the timeout passed first
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitStderr(Duration timeout) throws InterruptedException {
        return stderr.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the process and all its descendants: SIGTERM to each of them (descendants
     * snapshotted before any is signalled, and searched again after signalling), up to
     * {@code grace} for them to exit, then SIGKILL to whoever still runs; returns once all are gone
     * (including reaped), or after bounded waits that {@link Termination#remaining()} reports. Does
     * nothing if the process already exited (its orphaned descendants, if any, cannot be found any
     * more).
     *
     * <p>The pipes stay open, so that the output written before the end can still be read.
     *
     * @param grace how long the processes get to exit after SIGTERM; zero kills at once
     * @return who was signalled and who needed SIGKILL, by process ID
     * @throws InterruptedException if interrupted while waiting; signals already sent stay sent
     */
    public Termination terminate(Duration grace) throws InterruptedException {
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative");
        }
        synchronized (terminating) {
            if (!process.isAlive()) {
                return Termination.NOTHING;
            }
            Termination termination = ProcessTree.terminate(process.toHandle(), grace, reapWait, tree);
            if (!termination.remaining().contains(process.pid())) {
                // Reaped: let the Process object record the exit status before reporting back.
                process.waitFor(reapWait.toNanos() + EXIT_STATUS_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            }
            return termination;
        }
    }

    /**
     * Sends SIGKILL at once to the process, its descendants and every member of its tree that a
     * {@link #terminate} in progress found, without waiting for them to end and without waiting
     * for that terminate (it is not serialized with it: this is how a grace period in progress is
     * cut short). The pipes stay open.
     *
     * @return the process IDs sent SIGKILL (empty when none was running any more)
     */
    public List<Long> kill() {
        return ProcessTree.kill(process.toHandle(), tree);
    }

    /**
     * Terminates the process if it still runs ({@link #CLOSE_GRACE}), then closes its stdin and
     * stdout. Stderr is closed by its pump at end of stream.
     */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                terminate(CLOSE_GRACE);
            }
        } catch (InterruptedException e) {
            // No time left for a grace period: kill what can still be found.
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(process.getOutputStream());
            closeQuietly(process.getInputStream());
        }
    }

    private static void closeQuietly(AutoCloseable stream) {
        try {
            stream.close();
        } catch (Exception ignored) {
            // Closing a pipe of an ended process: nothing to report.
        }
    }

    @Override
    public String toString() {
        return spec.component() + "[pid " + process.pid() + "]";
    }
}
