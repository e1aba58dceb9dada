package io.tapline.schedule;

import io.tapline.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The "done when" of issue 5 with real processes: two packaged service instances
 * ({@code target/quarkus-app/quarkus-run.jar}) on one fresh database, 20 pipelines scheduled
 * {@code PT5S} (created half through each instance), run for a bounded window; every pipeline has
 * exactly one run row per tick of the window, no tick twice, none missing. No run executes here
 * ({@code tapline.runner.max-concurrent-runs=0}), so after a pipeline's first QUEUED run its later
 * ticks are SKIPPED rows; rows are counted whatever their status.
 * <p>Run with {@code ./mvnw -B verify -DskipITs=false -Dit.test=ScheduleTwoProcessIT -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ScheduleTwoProcessIT {

    private static final int PIPELINES = 20;
    private static final Duration PERIOD = Duration.ofSeconds(5);
    private static final int TICKS = 6;
    private static final Duration RESYNC = Duration.ofSeconds(3);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void twoInstancesProduceExactlyOneRunPerPipelinePerTick() throws Exception {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        assertTrue(Files.isRegularFile(jar), "package the service first (mvn verify builds " + jar + ")");
        TestDatabase db = new TestDatabase();
        Map<String, String> dbConfig = db.start();
        List<Instance> instances = new ArrayList<>();
        try {
            instances.add(Instance.start("a", jar, dbConfig));
            instances.get(0).awaitReady(http);
            instances.add(Instance.start("b", jar, dbConfig));
            instances.get(1).awaitReady(http);

            post(instances.get(0), "/api/v1/plugins/extractors", "{\"name\":\"tap-it\",\"executable\":\"tap-it\"}");
            post(instances.get(1), "/api/v1/plugins/loaders", "{\"name\":\"target-it\",\"executable\":\"target-it\"}");
            for (int i = 0; i < PIPELINES; i++) {
                post(instances.get(i % 2), "/api/v1/pipelines", ("{\"name\":\"it-%d\",\"extractor\":\"tap-it\","
                        + "\"loader\":\"target-it\",\"stateIdSuffix\":\"s%d\",\"schedule\":{\"interval\":\"PT5S\"}}")
                        .formatted(i, i));
            }
            // Each instance knows its own pipelines at once and the other's after one resync.
            Instant known = Instant.now().plus(RESYNC).plusSeconds(1);
            Instant windowStart = Instant.ofEpochMilli((known.toEpochMilli() / PERIOD.toMillis() + 1) * PERIOD.toMillis());
            Instant windowEnd = windowStart.plus(PERIOD.multipliedBy(TICKS - 1));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> count("select count(*) from pipeline_run where scheduled_for = '" + windowEnd + "'")
                            == PIPELINES);

            Map<String, Long> fires = new HashMap<>();
            for (Instance in : instances) {
                fires.putAll(in.metrics(http));
            }
            System.out.println("Scheduler metrics per instance: " + fires);
            long alreadyFired = fires.entrySet().stream().filter(e -> e.getKey().endsWith("already-fired"))
                    .mapToLong(Map.Entry::getValue).sum();
            assertTrue(alreadyFired >= PIPELINES * TICKS, "both instances tried the ticks: " + fires);

            assertEquals(0, count("select count(*) from (select 1 from pipeline_run where scheduled_for is not null"
                    + " group by pipeline_id, scheduled_for having count(*) > 1) d"), "a tick with two rows");
            assertEquals(PIPELINES * TICKS, count("select count(*) from pipeline_run where scheduled_for between '"
                    + windowStart + "' and '" + windowEnd + "'"));
            assertEquals((long) PIPELINES * TICKS, count("select count(distinct (pipeline_id, scheduled_for))"
                    + " from pipeline_run where scheduled_for between '" + windowStart + "' and '" + windowEnd + "'"));
            assertEquals(0, count("select count(*) from pipeline_run where scheduled_for is not null"
                    + " and extract(epoch from scheduled_for)::bigint % 5 <> 0"), "off the PT5S grid");
            assertEquals(0, count("select count(*) from pipeline_run where trigger <> 'SCHEDULE'"));
            long p90 = count("select (percentile_disc(0.9) within group (order by extract(epoch from queued_at - scheduled_for) * 1000))::bigint"
                    + " from pipeline_run where scheduled_for between '" + windowStart + "' and '" + windowEnd + "'");
            System.out.println("Fire lag p90: " + p90 + " ms");
            assertTrue(p90 < 1000, "fire lag p90 " + p90 + " ms");
        } finally {
            for (Instance in : instances) {
                in.stop();
            }
            db.stop();
        }
    }

    private void post(Instance in, String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(in.uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, r.statusCode(), path + ": " + r.body());
    }

    private static long count(String sql) throws Exception {
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** One service process. */
    private record Instance(String name, Process process, int port, Path log) {

        static Instance start(String name, Path jar, Map<String, String> db) throws IOException {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path log = Path.of("target", "it-logs", "scheduler-" + name + ".log");
            Files.createDirectories(log.getParent());
            String java = ProcessHandle.current().info().command().orElse("java");
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-jar", jar.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("QUARKUS_DATASOURCE_JDBC_URL", db.get("quarkus.datasource.jdbc.url"));
            env.put("QUARKUS_DATASOURCE_USERNAME", db.get("quarkus.datasource.username"));
            env.put("QUARKUS_DATASOURCE_PASSWORD", db.get("quarkus.datasource.password"));
            env.put("TAPLINE_DATABASE_SCHEMA", db.get("tapline.database.schema"));
            env.put("TAPLINE_DATABASE_EMBEDDED", "false");
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("TAPLINE_RUNNER_MAX_CONCURRENT_RUNS", "0");
            env.put("TAPLINE_RUNNER_INSTANCE_ID", "it-" + name);
            env.put("TAPLINE_SCHEDULER_RESYNC_INTERVAL", RESYNC.toSeconds() + "s");
            return new Instance(name, pb.start(), port, log);
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }

        void awaitReady(HttpClient http) {
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("instance " + name + " exited; see " + log);
                }
                try {
                    return http.send(HttpRequest.newBuilder(uri("/q/health/ready")).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (IOException e) {
                    return false;
                }
            });
        }

        /** {@code tapline_scheduler_fires_total} by outcome, keyed {@code <instance>/<outcome>}. */
        Map<String, Long> metrics(HttpClient http) throws IOException, InterruptedException {
            String text = http.send(HttpRequest.newBuilder(uri("/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Long> out = new HashMap<>();
            Matcher m = Pattern.compile("(?m)^tapline_scheduler_fires_total\\{[^}]*outcome=\"([^\"]+)\"[^}]*}\\s+([0-9.Ee+]+)")
                    .matcher(text);
            while (m.find()) {
                out.put(name + "/" + m.group(1), (long) Double.parseDouble(m.group(2)));
            }
            return out;
        }

        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
