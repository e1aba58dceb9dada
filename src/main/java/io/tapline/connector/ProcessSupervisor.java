package io.tapline.connector;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * Starts connector processes ({@link ProcessSpec}) and keeps track of the ones still running, so
 * that they can all be stopped at service shutdown ({@link #terminateAll}).
 *
 * <p>Each process gets its stdin and stdout as pipes for the caller, and a daemon thread that
 * drains its stderr line by line into a sink, prefixed with {@code "<component> | "} (see
 * {@link StderrPump} for line cutting and decoding).
 *
 * <p>Thread-safe.
 */
public final class ProcessSupervisor {

    /** The default of how long terminating waits for exited processes to be reaped. */
    public static final Duration DEFAULT_REAP_WAIT = Duration.ofSeconds(5);

    private final Duration reapWait;
    private final Set<ConnectorProcess> running = ConcurrentHashMap.newKeySet();
    /** Every process started, also exited ones whose re-parented descendants may still run ({@link #killAll}). */
    private final Set<ConnectorProcess> started = ConcurrentHashMap.newKeySet();

    /** A supervisor with the {@link #DEFAULT_REAP_WAIT default reap wait}. */
    public ProcessSupervisor() {
        this(DEFAULT_REAP_WAIT);
    }

    /**
     * A supervisor whose processes' {@link ConnectorProcess#terminate} waits up to
     * {@code reapWait}, after every process exited, for the exited ones to be reaped by their
     * parent or init (see {@link Termination#remaining()}).
     *
     * @throws IllegalArgumentException if {@code reapWait} is negative
     */
    public ProcessSupervisor(Duration reapWait) {
        if (Objects.requireNonNull(reapWait, "reapWait").isNegative()) {
            throw new IllegalArgumentException("reapWait must not be negative");
        }
        this.reapWait = reapWait;
    }

    /**
     * Starts a process, without a shell, in {@code spec.workingDirectory()} with exactly
     * {@code spec.environment()}.
     *
     * @param spec       what to start
     * @param stderrSink receives each stderr line as {@code "<component> | <line>"}, on the
     *                   process's stderr thread; must not block for long (the process stalls
     *                   when its stderr pipe is full)
     * @return the running process
     * @throws IOException if the working directory is not a directory, the executable is not found
     *                     on the environment's {@code PATH}, or the OS cannot start it
     */
    public ConnectorProcess start(ProcessSpec spec, Consumer<String> stderrSink) throws IOException {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(stderrSink, "stderrSink");
        Path directory = spec.workingDirectory().toAbsolutePath();
        if (!Files.isDirectory(directory)) {
            throw new IOException("Working directory of " + spec.component() + " does not exist: " + directory);
        }
        List<String> command = new ArrayList<>(spec.command());
        command.set(0, resolveExecutable(command.get(0), spec.environment(), directory));

        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.putAll(spec.environment());
        Process process = builder.start();

        StderrPump pump = new StderrPump(process.getErrorStream(), spec.component() + " | ", stderrSink);
        Thread pumpThread = new Thread(pump, "stderr-" + spec.component() + "-" + process.pid());
        pumpThread.setDaemon(true);
        pumpThread.start();

        ConnectorProcess connector = new ConnectorProcess(spec, command, process, pump, reapWait);
        running.add(connector);
        started.add(connector);
        process.onExit().thenRun(() -> running.remove(connector));
        return connector;
    }

    /** The processes started by this supervisor that have not exited yet (a snapshot). */
    public List<ConnectorProcess> running() {
        return running.stream().filter(ConnectorProcess::isAlive).toList();
    }

    /**
     * Terminates every running process and its descendants at the same time (see
     * {@link ConnectorProcess#terminate}), e.g. at service shutdown.
     *
     * @param grace how long the processes get to exit after SIGTERM
     * @return what was done, per process, in no particular order
     * @throws InterruptedException if interrupted while waiting
     */
    public Map<ConnectorProcess, Termination> terminateAll(Duration grace) throws InterruptedException {
        Map<ConnectorProcess, CompletableFuture<Termination>> pending = new LinkedHashMap<>();
        for (ConnectorProcess process : running()) {
            CompletableFuture<Termination> termination = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    termination.complete(process.terminate(grace));
                } catch (Throwable e) {
                    termination.completeExceptionally(e);
                }
            }, "terminate-" + process.component() + "-" + process.pid());
            thread.setDaemon(true);
            thread.start();
            pending.put(process, termination);
        }
        Map<ConnectorProcess, Termination> results = new LinkedHashMap<>();
        for (Map.Entry<ConnectorProcess, CompletableFuture<Termination>> entry : pending.entrySet()) {
            try {
                results.put(entry.getKey(), entry.getValue().get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("Terminating " + entry.getKey() + " failed", e.getCause());
            }
        }
        return results;
    }

    /**
     * Sends SIGKILL at once to every process this supervisor started that still runs, their
     * descendants, and the descendants a terminate in progress found of processes that already
     * exited ({@link ConnectorProcess#kill}), also while a {@link #terminateAll} grace period is in
     * progress; does not wait. (A supervisor lives as long as one run or probe, so it keeps every
     * process it started.)
     *
     * @return the process IDs sent SIGKILL, per process that had any
     */
    public Map<ConnectorProcess, List<Long>> killAll() {
        Map<ConnectorProcess, List<Long>> killed = new LinkedHashMap<>();
        for (ConnectorProcess process : List.copyOf(started)) {
            List<Long> pids = process.kill();
            if (!pids.isEmpty()) {
                killed.put(process, pids);
            }
        }
        return killed;
    }

    /**
     * The executable to run: {@code name} itself when it contains a {@code /}; otherwise the first
     * executable regular file called {@code name} in a directory of the environment's
     * {@code PATH} (the JDK would search the service's own {@code PATH}).
     */
    static String resolveExecutable(String name, Map<String, String> environment, Path workingDirectory)
            throws IOException {
        if (name.indexOf('/') >= 0) {
            return name;
        }
        String path = environment.get("PATH");
        if (path == null || path.isEmpty()) {
            throw new IOException("Cannot run '" + name + "': it is not a path and the environment has no PATH");
        }
        for (String entry : path.split(File.pathSeparator, -1)) {
            Path candidate = workingDirectory.resolve(entry.isEmpty() ? "." : entry).resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IOException("Cannot run '" + name + "': not found on PATH " + path);
    }
}
