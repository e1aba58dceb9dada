package io.tapline.catalog;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.RunAsUser;
import io.tapline.common.security.SecretMasker;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.ProcessSpec;
import io.tapline.connector.ProcessSupervisor;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one short-lived connector process outside a run ({@code --discover}, a connection test,
 * {@code --about}) under its own process supervisor, without a shell: its stdout goes to an
 * {@link Output} on a thread of its own, its stderr lines are kept (masked, the newest
 * {@value #STDERR_LINES}); the process tree gets SIGTERM, then SIGKILL after
 * {@code tapline.runner.terminate-grace}, when the output asks to stop (the first RECORD of a
 * connection test) or when the time limit passes, so that no process outlives the call.
 */
@ApplicationScoped
public class ConnectorProbe {

    private static final Logger LOG = Logger.getLogger(ConnectorProbe.class);
    static final int STDERR_LINES = 50;
    private static final Duration POLL = Duration.ofMillis(100);

    /** Reads the process's stdout; calls {@code stop} to end the process early. */
    @FunctionalInterface
    public interface Output {
        /** Reads until the end of the stream (or until it is closed under it). */
        void read(InputStream stdout, Runnable stop) throws IOException;
    }

    /**
     * How a probe ended.
     *
     * @param exitCode the exit code, or null when it did not exit by itself (stopped or timed out)
     * @param stopped the output asked to stop (for a connection test: a RECORD arrived)
     * @param timedOut the time limit passed
     * @param stderr the newest stderr lines, masked, without the component prefix
     * @param durationMs start to end, in milliseconds
     * @param leftAlive pids still alive after SIGKILL (normally empty)
     * @param aborted the caller asked it to end (the run it belongs to was cancelled or timed out)
     */
    public record Result(Integer exitCode, boolean stopped, boolean timedOut, List<String> stderr, long durationMs,
                         List<Long> leftAlive, boolean aborted) {

        /** The last non-blank stderr line, or null. */
        public String lastLine() {
            for (int i = stderr.size() - 1; i >= 0; i--) {
                if (!stderr.get(i).isBlank()) {
                    return stderr.get(i).strip();
                }
            }
            return null;
        }
    }

    private final TaplineConfig config;
    private final RunAsUser runAs;
    private final Clock clock;

    public ConnectorProbe(TaplineConfig config, RunAsUser runAs, Clock clock) {
        this.config = config;
        this.runAs = runAs;
        this.clock = clock;
    }

    /**
     * Runs {@code command} in {@code dir} with exactly {@code env}.
     *
     * @param component the log prefix (extractor, loader)
     * @param limit the time limit
     * @param masker masks secrets in the kept stderr lines
     * @throws IOException when the process cannot start (missing executable, ...)
     */
    public Result run(String component, List<String> command, Path dir, Map<String, String> env, Duration limit,
                      SecretMasker masker, Output output) throws IOException {
        return run(component, command, dir, env, limit, masker, output, () -> false);
    }

    /**
     * As {@link #run(String, List, Path, Map, Duration, SecretMasker, Output)}; the process tree is
     * also stopped, within 100 ms, once {@code abort} says so ({@link Result#aborted}).
     */
    public Result run(String component, List<String> command, Path dir, Map<String, String> env, Duration limit,
                      SecretMasker masker, Output output, java.util.function.BooleanSupplier abort) throws IOException {
        ProcessSupervisor supervisor = new ProcessSupervisor();
        Deque<String> stderr = new ArrayDeque<>();
        String prefix = component + " | ";
        Instant started = clock.instant();
        ConnectorProcess p = supervisor.start(new ProcessSpec(component, runAs.wrap(command, dir), dir, env), line -> {
            String text = masker.mask(line.startsWith(prefix) ? line.substring(prefix.length()) : line);
            synchronized (stderr) {
                stderr.addLast(text);
                if (stderr.size() > STDERR_LINES) {
                    stderr.removeFirst();
                }
            }
        });
        try {
            p.stdin().close();
        } catch (IOException ignored) {
            // the process may already be gone
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread reader = new Thread(() -> {
            try (InputStream in = p.stdout()) {
                output.read(in, () -> stop.set(true));
            } catch (IOException ignored) {
                // closed under it when the process was stopped
            }
        }, "probe-" + component);
        reader.setDaemon(true);
        reader.start();
        Instant deadline = started.plus(limit);
        boolean timedOut = false;
        boolean stopped = false;
        boolean aborted = false;
        try {
            while (true) {
                boolean exited = p.waitFor(POLL);
                // the output's stop first: a tap may die of the closed pipe right after its RECORD
                if (stop.get()) {
                    stopped = true;
                    break;
                }
                if (exited && !reader.isAlive()) {
                    break;
                }
                if (exited) {
                    reader.join(POLL.toMillis());
                }
                if (clock.instant().isAfter(deadline)) {
                    timedOut = true;
                    break;
                }
                if (abort.getAsBoolean()) {
                    aborted = true;
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            timedOut = true;
        }
        // a reader that ended has set its stop before it ended (visible once it is not alive)
        stopped = stopped || (!timedOut && !aborted && !reader.isAlive() && stop.get());
        List<Long> alive = List.of();
        try {
            alive = supervisor.terminateAll(config.runner().terminateGrace()).values().stream()
                    .flatMap(t -> t.remaining().stream()).toList();
            p.awaitStderr(Duration.ofSeconds(2));
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!alive.isEmpty()) {
            LOG.warnf("%s probe: pid(s) %s still alive after SIGKILL", component, alive);
        }
        Integer code = stopped || timedOut || aborted || p.exitCode().isEmpty() ? null : p.exitCode().getAsInt();
        p.close();
        List<String> lines;
        synchronized (stderr) {
            lines = List.copyOf(stderr);
        }
        return new Result(code, stopped, timedOut, lines, Duration.between(started, clock.instant()).toMillis(), alive,
                aborted);
    }
}
