package io.tapline.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real {@code tapline} launcher ({@code target/cli/bin/tapline}, built by {@code ./mvnw
 * package} from {@code cli/}) run as a process against the test service: a private working
 * directory, HOME, profiles file and AppCDS cache under {@code target/cli-test/}, and only the
 * {@code TAPLINE_*} variables a test gives.
 */
public final class Cli {

    /** The launcher. */
    public static final Path LAUNCHER = Path.of("target/cli/bin/tapline").toAbsolutePath();
    /** The private directory of the CLI processes (working directory, HOME, cache). */
    public static final Path HOME = Path.of("target/cli-test").toAbsolutePath();
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final Map<String, String> env = new LinkedHashMap<>();
    private Path workDir = HOME.resolve("work");

    private Cli(String url, String token) {
        env.put("TAPLINE_URL", url);
        if (token != null) {
            env.put("TAPLINE_TOKEN", token);
        }
    }

    /** A CLI for the service at {@code url} with {@code token} (null: none). */
    public static Cli at(URL url, String token) {
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " is missing: build it with ./mvnw package"
                + " (or ./mvnw -f cli/pom.xml package)");
        String base = url.toString();
        return new Cli(base.endsWith("/") ? base.substring(0, base.length() - 1) : base, token);
    }

    /** With an environment variable set (null: removed). */
    public Cli env(String name, String value) {
        if (value == null) {
            env.remove(name);
        } else {
            env.put(name, value);
        }
        return this;
    }

    /** With another working directory. */
    public Cli in(Path dir) {
        this.workDir = dir;
        return this;
    }

    /** Runs {@code tapline args...} with an empty (closed) stdin and waits for it. */
    public Result run(String... args) {
        Running r = start(args);
        r.closeInput();
        return r.end();
    }

    /** Runs it with {@code stdin} as its standard input. */
    public Result runWithInput(byte[] stdin, String... args) {
        Running r = start(args);
        r.write(stdin);
        r.closeInput();
        return r.end();
    }

    /** Starts {@code tapline args...}; the caller talks to it and ends it. */
    public Running start(String... args) {
        try {
            Files.createDirectories(workDir);
            Files.createDirectories(HOME.resolve("home"));
            List<String> cmd = new ArrayList<>();
            cmd.add(LAUNCHER.toString());
            cmd.addAll(Arrays.asList(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile());
            Map<String, String> e = pb.environment();
            e.keySet().removeIf(k -> k.startsWith("TAPLINE_") || k.startsWith("XDG_") || k.equals("NO_COLOR"));
            e.put("HOME", HOME.resolve("home").toString());
            e.put("XDG_CACHE_HOME", HOME.resolve("cache").toString());
            e.put("TAPLINE_CONFIG", HOME.resolve("home/config").toString());
            e.putAll(env);
            return new Running(pb.start(), String.join(" ", args));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A finished invocation.
     *
     * @param exitCode the process's exit code
     * @param stdout its standard output, as bytes
     * @param stderr its standard error, as text
     */
    public record Result(int exitCode, byte[] stdout, String stderr) {

        /** Standard output as UTF-8 text. */
        public String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out() + "--- stderr\n" + stderr;
        }
    }

    /** A running invocation whose output is collected while it runs. */
    public static final class Running {

        private final Process process;
        private final String args;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private final Thread outPump;
        private final Thread errPump;

        Running(Process process, String args) {
            this.process = process;
            this.args = args;
            this.outPump = pump(process.getInputStream(), out, "cli-stdout");
            this.errPump = pump(process.getErrorStream(), err, "cli-stderr");
        }

        private static Thread pump(InputStream in, ByteArrayOutputStream to, String name) {
            Thread t = new Thread(() -> {
                byte[] b = new byte[8192];
                try {
                    for (int n; (n = in.read(b)) >= 0; ) {
                        synchronized (to) {
                            to.write(b, 0, n);
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            }, name);
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** The process id (the JVM's: the launcher execs java). */
        public long pid() {
            return process.pid();
        }

        /** Writes to its stdin. */
        public void write(byte[] bytes) {
            try {
                OutputStream in = process.getOutputStream();
                in.write(bytes);
                in.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Closes its stdin. */
        public void closeInput() {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** What it wrote to stderr so far. */
        public String stderr() {
            synchronized (err) {
                return err.toString(StandardCharsets.UTF_8);
            }
        }

        /** What it wrote to stdout so far. */
        public String stdout() {
            synchronized (out) {
                return out.toString(StandardCharsets.UTF_8);
            }
        }

        /** Waits until its stderr contains {@code text}. */
        public void awaitStderr(String text) {
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50))
                    .until(() -> stderr().contains(text) || !process.isAlive());
            assertTrue(stderr().contains(text), "tapline " + args + " never wrote '" + text + "' to stderr: "
                    + stderr());
        }

        /** Sends a signal ({@code INT}, {@code TERM}) to it. */
        public void signal(String name) {
            try {
                int rc = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
                assertTrue(rc == 0, "kill -" + name + " failed");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** Waits for the end and returns the result. */
        public Result end() {
            try {
                if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("tapline " + args + " did not end within " + TIMEOUT + "; stderr: "
                            + stderr());
                }
                outPump.join(TIMEOUT.toMillis());
                errPump.join(TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            byte[] o;
            synchronized (out) {
                o = out.toByteArray();
            }
            return new Result(process.exitValue(), o, stderr());
        }
    }
}
