package io.tapline.run.exec;

import io.tapline.connector.ConnectorProcess;
import org.jboss.logging.MDC;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/** Small helpers of the run threads: MDC-carrying threads, pumps, quiet waits and closes. */
final class RunThreads {

    private RunThreads() {
    }

    /** Starts a daemon helper thread that carries the caller's MDC (run id, pipeline, state ID). */
    static Thread start(String name, Runnable body) {
        Map<String, Object> mdc = MDC.getMap();
        Thread t = new Thread(() -> {
            mdc.forEach(MDC::put);
            try {
                body.run();
            } finally {
                mdc.keySet().forEach(MDC::remove);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Copies {@code from} to {@code to} until the end, then closes {@code to}. */
    static void pump(InputStream from, OutputStream to) {
        byte[] buf = new byte[65536];
        try {
            int n;
            while ((n = from.read(buf)) > 0) {
                to.write(buf, 0, n);
            }
            to.flush();
        } catch (IOException ignored) {
            // the consumer ended; the exit codes tell the story
        } finally {
            closeQuietly(to);
        }
    }

    /** Starts a thread that hands each line of {@code in} (UTF-8) to {@code sink} until the end. */
    static Thread lines(String name, InputStream in, Consumer<String> sink) {
        return start(name, () -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
    }

    static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Waits up to {@code d} for the process (and then briefly its stderr); true when it ended. */
    static boolean waitFor(ConnectorProcess p, Duration d) {
        try {
            boolean done = p.waitFor(d);
            if (done) {
                p.awaitStderr(Duration.ofSeconds(2));
            }
            return done;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    /**
     * Waits up to {@code d} for a thread to end (woken by its end, not by polling).
     *
     * @return true when it has ended; false after the wait, or when interrupted (the interrupt is kept)
     */
    static boolean ended(Thread t, Duration d) {
        try {
            t.join(Math.max(1, d.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !t.isAlive();
    }

    /** Joins a thread for up to {@code millis}. */
    static void join(Thread t, long millis) {
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The exit code, or -1 while it runs. */
    static int code(ConnectorProcess p) {
        return p.exitCode().orElse(-1);
    }

    /** The innermost message of an exception. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
