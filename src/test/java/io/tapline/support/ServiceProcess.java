package io.tapline.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * The packaged service ({@code target/quarkus-app/quarkus-run.jar}, built by {@code ./mvnw
 * package}; or the native executable named by the {@code native.image.path} system property when
 * it is newer) running as a child process of an integration test, in the prod profile, on a free
 * port, with its output in {@code target/it/<name>-<n>/service.log}. JVM options keep it small
 * (serial GC, C1 only, 256 MB heap): the ITs run several of these on a 2-core machine.
 */
public final class ServiceProcess implements AutoCloseable {

    /** The fast-jar launcher. */
    public static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static int counter;

    private final String name;
    private final Path dir;
    private final int port;
    private final Process process;
    private final Path log;

    private ServiceProcess(String name, Path dir, int port, Process process, Path log) {
        this.name = name;
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /** A service on {@code database} (its URL, credentials and schema), with extra settings. */
    public static ServiceProcess start(String name, TestPostgres.Database database, Map<String, String> settings) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", database.url());
        env.put("QUARKUS_DATASOURCE_USERNAME", database.user());
        env.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
        env.put("TAPLINE_DATABASE_SCHEMA", database.schema());
        env.putAll(settings);
        return start(name, env);
    }

    /**
     * A service with exactly these Tapline/Quarkus settings (environment variables) besides the
     * port and its private run and log directories.
     */
    public static ServiceProcess start(String name, Map<String, String> settings) {
        return start(name, settings, "256m", List.of());
    }

    /**
     * A service on {@code database} with extra settings, a heap of {@code maxHeap} ({@code -Xmx})
     * and extra JVM options (e.g. GC logging); otherwise as {@link #start(String, TestPostgres.Database, Map)}.
     */
    public static ServiceProcess start(String name, TestPostgres.Database database, Map<String, String> settings,
                                       String maxHeap, List<String> jvmOptions) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", database.url());
        env.put("QUARKUS_DATASOURCE_USERNAME", database.user());
        env.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
        env.put("TAPLINE_DATABASE_SCHEMA", database.schema());
        env.putAll(settings);
        return start(name, env, maxHeap, jvmOptions);
    }

    private static ServiceProcess start(String name, Map<String, String> settings, String maxHeap,
                                        List<String> jvmOptions) {
        // These tests are about processes, replicas and outages; authentication is tested by
        // EndpointSecurityTest. The explicit switch keeps their HTTP calls token-free.
        Map<String, String> withAuthOff = new LinkedHashMap<>();
        withAuthOff.put("TAPLINE_SECURITY_ENABLED", "false");
        withAuthOff.putAll(settings);
        settings = withAuthOff;
        List<String> cmd = command(maxHeap, jvmOptions);
        try {
            int n;
            synchronized (ServiceProcess.class) {
                n = ++counter;
            }
            Path dir = Files.createDirectories(Path.of("target/it", name + "-" + ProcessHandle.current().pid() + "-" + n)
                    .toAbsolutePath());
            int port = freePort();
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> k.startsWith("QUARKUS_") || k.startsWith("TAPLINE_") || k.startsWith("TEST_DB"));
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("TAPLINE_RUNNER_INSTANCE_ID", name);
            env.put("TAPLINE_RUNNER_RUNS_DIR", dir.resolve("runs").toString());
            env.put("TAPLINE_RUNNER_LOGS_DIR", dir.resolve("logs").toString());
            env.putAll(settings);
            Path log = dir.resolve("service.log");
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            return new ServiceProcess(name, dir, port, pb.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The packaged build in runner mode ({@code run <args>}) on {@code database}, as a child
     * process in {@code dir} with its output in {@code dir/<name>.log}: the same JVM options as a
     * service, private run and log directories, instance id {@code name}.
     */
    public static Process runner(String name, TestPostgres.Database database, Path dir, Map<String, String> settings,
                                 List<String> args) {
        List<String> cmd = new ArrayList<>(command("256m", List.of()));
        cmd.add("run");
        cmd.addAll(args);
        try {
            Files.createDirectories(dir);
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> k.startsWith("QUARKUS_") || k.startsWith("TAPLINE_") || k.startsWith("TEST_DB"));
            env.put("QUARKUS_DATASOURCE_JDBC_URL", database.url());
            env.put("QUARKUS_DATASOURCE_USERNAME", database.user());
            env.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
            env.put("TAPLINE_DATABASE_SCHEMA", database.schema());
            env.put("TAPLINE_SECURITY_ENABLED", "false");
            env.put("TAPLINE_RUNNER_INSTANCE_ID", name);
            env.put("TAPLINE_RUNNER_RUNS_DIR", dir.resolve(name + "-runs").toString());
            env.put("TAPLINE_RUNNER_LOGS_DIR", dir.resolve(name + "-logs").toString());
            env.putAll(settings);
            pb.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The command that starts the packaged build ({@code java -jar ...} or the native executable). */
    public static List<String> packagedCommand() {
        return command("256m", List.of());
    }

    /** {@code java -jar} the fast-jar, or the native executable when it was built after it. */
    private static List<String> command(String maxHeap, List<String> jvmOptions) {
        try {
            String nativePath = System.getProperty("native.image.path");
            Path exe = nativePath == null ? null : Path.of(nativePath).toAbsolutePath();
            boolean jar = Files.isRegularFile(JAR);
            if (exe != null && Files.isExecutable(exe)
                    && (!jar || Files.getLastModifiedTime(exe).compareTo(Files.getLastModifiedTime(JAR)) > 0)) {
                List<String> cmd = new ArrayList<>(List.of(exe.toString(), "-Xmx" + maxHeap));
                cmd.addAll(jvmOptions);
                return cmd;
            }
            if (!jar) {
                throw new IllegalStateException(JAR + " is missing: integration tests run after `./mvnw package`");
            }
            String java = ProcessHandle.current().info().command().orElse("java");
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1"));
            cmd.addAll(jvmOptions);
            cmd.addAll(List.of("-jar", JAR.toString()));
            return cmd;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A TCP port that was free a moment ago. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code /q/health/ready} answers 200; fails early, with the log, if the process exits. */
    public ServiceProcess awaitReady(Duration timeout) {
        await(name + " ready").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + " before it was ready:\n"
                        + logTail());
            }
            return status("/q/health/ready") == 200;
        });
        return this;
    }

    /** The HTTP status of {@code GET path}, or -1 when the service does not answer. */
    public int status(String path) {
        try {
            return get(path).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    /** {@code GET path}. */
    public HttpResponse<String> get(String path) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUri() + path)).timeout(Duration.ofSeconds(10))
                .GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** {@code http://localhost:<port>}. */
    public String baseUri() {
        return "http://localhost:" + port;
    }

    /** The HTTP port. */
    public int port() {
        return port;
    }

    /** The service's instance id ({@code tapline.runner.instance-id}): its name. */
    public String name() {
        return name;
    }

    /** The service's working directory (runs, logs, service.log). */
    public Path dir() {
        return dir;
    }

    /** The JVM process. */
    public Process process() {
        return process;
    }

    /** Sends SIGTERM ({@link Process#destroy()} on Linux), as Kubernetes does to stop a pod. */
    public void sigterm() {
        process.destroy();
    }

    /** Waits for the process to exit and returns its exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + timeout + ":\n" + logTail());
        }
        return process.exitValue();
    }

    /**
     * SIGKILL ({@code kill -9}) to the JVM only, as when a node dies: its connector processes stay
     * behind as orphans.
     *
     * @return the JVM's descendants just before the kill (the orphans to clean up)
     */
    public List<ProcessHandle> kill() throws InterruptedException {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        return descendants;
    }

    /** Everything the service printed so far. */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The last 8000 characters of {@link #log()}. */
    public String logTail() {
        String l = log();
        return l.length() > 8000 ? l.substring(l.length() - 8000) : l;
    }

    /** Kills the service (if still running) and every process it started. */
    @Override
    public void close() {
        List<ProcessHandle> children = process.descendants().toList();
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", port " + port + ")";
    }
}
