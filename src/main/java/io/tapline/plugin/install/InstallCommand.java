package io.tapline.plugin.install;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs the processes of one install (venv, pip, uv, the seeding of build requirements) as
 * {@link InstallUser} with its environment: an argument array, never a shell; each output line
 * (stdout and stderr merged) masked and logged; a non-zero exit, the deadline or a stop fail the
 * install ({@link EnvironmentBuilder.InstallFailure}, with the reason {@link PipOutput#reason} makes
 * of the last {@value #TAIL_LINES} lines). A stopped or timed-out process is killed with its
 * descendants (build backends included). Not thread-safe; one per install.
 */
final class InstallCommand {

    /** Output lines kept for the failure reason. */
    static final int TAIL_LINES = 60;
    private static final long POLL_MS = 100;
    private static final Duration KILL_GRACE = Duration.ofSeconds(3);

    private final InstallUser user;
    private final Path workDir;
    private final Map<String, String> env;
    private final Consumer<String> log;
    private final BooleanSupplier stop;
    private final long deadline;

    /**
     * @param workDir working directory of the processes
     * @param env their environment ({@link InstallUser#environment})
     * @param log receives each line, masked
     * @param stop true when the install must stop
     * @param deadline {@link System#nanoTime()} beyond which the install fails
     */
    InstallCommand(InstallUser user, Path workDir, Map<String, String> env, Consumer<String> log,
                   BooleanSupplier stop, long deadline) {
        this.user = user;
        this.workDir = workDir;
        this.env = env;
        this.log = log;
        this.stop = stop;
        this.deadline = deadline;
    }

    /** Logs one line of the install's own (not a process's). */
    void say(String line) {
        log.accept(line);
    }

    /**
     * Runs one command to its end, logging {@code $ <cmd>} first.
     *
     * @param what the step, in the reason ({@code "pip install"}: pip's reason alone)
     * @throws EnvironmentBuilder.InstallFailure on a non-zero exit, a timeout or a stop
     */
    void run(List<String> cmd, String what) throws EnvironmentBuilder.InstallFailure {
        run(cmd, String.join(" ", cmd), what);
    }

    /**
     * Runs one command to its end, logging {@code $ <shown>} first (a shorter form of a long
     * command, such as a script passed with {@code -c}).
     *
     * @throws EnvironmentBuilder.InstallFailure on a non-zero exit, a timeout or a stop
     */
    void run(List<String> cmd, String shown, String what) throws EnvironmentBuilder.InstallFailure {
        log.accept("$ " + PipOutput.mask(shown));
        List<String> command = user.command(cmd, what);
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new EnvironmentBuilder.InstallFailure(what + " could not start '" + cmd.get(0) + "': "
                    + e.getMessage() + (cmd.get(0).contains("python") ? " (is the interpreter installed? set the"
                    + " plugin's python or tapline.plugins.python)" : ""));
        }
        Deque<String> tail = new ArrayDeque<>();
        Thread reader = new Thread(() -> readLines(p, tail), "install-output-" + p.pid());
        reader.setDaemon(true);
        reader.start();
        try {
            while (!p.waitFor(POLL_MS, TimeUnit.MILLISECONDS)) {
                if (stop.getAsBoolean() || System.nanoTime() > deadline) {
                    kill(p);
                    reader.join(KILL_GRACE.toMillis());
                    checkStop();
                }
            }
            reader.join(KILL_GRACE.toMillis());
        } catch (InterruptedException e) {
            kill(p);
            Thread.currentThread().interrupt();
            throw new EnvironmentBuilder.InstallFailure(what + " was interrupted");
        }
        if (p.exitValue() != 0) {
            List<String> lines;
            synchronized (tail) {
                lines = List.copyOf(tail);
            }
            String reason = PipOutput.reason(lines, p.exitValue());
            throw new EnvironmentBuilder.InstallFailure(what.equals("pip install") ? reason
                    : what + " failed (exit code " + p.exitValue() + "): " + reason,
                    PipOutput.buildRequirementsMissing(lines));
        }
    }

    /** Fails when the install must stop or its deadline has passed. */
    void checkStop() throws EnvironmentBuilder.InstallFailure {
        checkStop(stop, deadline);
    }

    static void checkStop(BooleanSupplier stop, long deadline) throws EnvironmentBuilder.InstallFailure {
        if (stop.getAsBoolean()) {
            throw new EnvironmentBuilder.InstallFailure("the install was stopped (the run was cancelled or the service"
                    + " is stopping)");
        }
        if (System.nanoTime() > deadline) {
            throw new EnvironmentBuilder.InstallFailure("the install took longer than tapline.plugins.install-timeout"
                    + " and was stopped");
        }
    }

    /** Waits one poll interval. */
    static void sleep() throws EnvironmentBuilder.InstallFailure {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EnvironmentBuilder.InstallFailure("the install was interrupted");
        }
    }

    private void readLines(Process p, Deque<String> tail) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String masked = PipOutput.mask(line);
                log.accept(masked);
                synchronized (tail) {
                    tail.addLast(masked);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
        } catch (IOException e) {
            // the process was killed; what was read is logged
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        try {
            if (!p.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
