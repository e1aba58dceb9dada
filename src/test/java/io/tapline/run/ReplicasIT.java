package io.tapline.run;

import io.tapline.support.Connectors;
import io.tapline.support.ItSupport;
import io.tapline.support.ServiceProcess;
import io.tapline.support.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.tapline.support.ItSupport.row;
import static io.tapline.support.ItSupport.rows;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two packaged replicas on one database. Started at the same moment on an empty database, both
 * become ready and Flyway (its lock) applies each migration exactly once. Then replica A runs a
 * long run and is killed with SIGKILL; replica B's reaper fails the run ("heartbeat lost"). A's
 * connector processes survive the kill as orphans (a known limit, docs/operations.md); the test
 * kills them itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicasIT {

    private static final Duration STARTUP = Duration.ofSeconds(180);
    private static final Pattern MIGRATION = Pattern.compile("V(\\d+(?:[._]\\d+)*)__.+\\.sql");

    private TestPostgres.Database db;
    private ServiceProcess a;
    private ServiceProcess b;
    private final List<Long> orphans = new ArrayList<>();

    @BeforeAll
    void startTwoReplicasAtOnceOnAnEmptyDatabase() {
        db = TestPostgres.shared().createDatabase("it_replicas");
        a = ServiceProcess.start("replica-a", db, Map.of());
        // B never claims runs, and declares a run dead after 5 s without a heartbeat.
        b = ServiceProcess.start("replica-b", db, Map.of(
                "TAPLINE_RUNNER_MAX_CONCURRENT_RUNS", "0",
                "TAPLINE_RUNNER_HEARTBEAT_TIMEOUT", "5s",
                "TAPLINE_RUNNER_REAPER_INTERVAL", "1s"));
        a.awaitReady(STARTUP);
        b.awaitReady(STARTUP);
    }

    @AfterEach
    void resetRestAssured() {
        ItSupport.reset();
    }

    @AfterAll
    void stop() {
        Stream.of(a, b).filter(java.util.Objects::nonNull).forEach(ServiceProcess::close);
        ItSupport.killAll(orphans);
        if (db != null) {
            db.close();
        }
    }

    @Test
    @Order(1)
    void bothReplicasBecameReadyAndEachMigrationWasAppliedOnce() throws Exception {
        assertEquals(200, a.status("/q/health/ready"));
        assertEquals(200, b.status("/q/health/ready"));
        Set<String> expected = new TreeSet<>();
        try (var files = Files.list(Path.of("src/main/resources/db/migration"))) {
            files.forEach(f -> {
                Matcher m = MIGRATION.matcher(f.getFileName().toString());
                if (m.matches()) {
                    expected.add(m.group(1).replace('_', '.'));
                }
            });
        }
        try (Connection c = db.connect()) {
            List<Map<String, Object>> history = rows(c, "select version, count(*) as n, bool_and(success) as ok"
                    + " from flyway_schema_history where version is not null group by version");
            Set<String> applied = new TreeSet<>();
            for (Map<String, Object> r : history) {
                assertEquals(1L, ((Number) r.get("n")).longValue(), "applied once: " + r);
                assertEquals(Boolean.TRUE, r.get("ok"), "succeeded: " + r);
                applied.add((String) r.get("version"));
            }
            assertEquals(expected, applied);
        }
        // One replica migrated, the other waited for Flyway's lock and found nothing to do.
        long migrated = Stream.of(a, b).filter(s -> s.log().matches("(?s).*Successfully applied \\d+ migration.*"))
                .count();
        assertEquals(1, migrated, "exactly one replica applied the migrations");
    }

    @Test
    @Order(2)
    void theRunOfAKilledReplicaIsFailedByTheOtherReplicasReaper() throws Exception {
        ItSupport.use(a);
        Path pids = Files.createTempFile(a.dir(), "pids", ".txt");
        String pipeline = Connectors.pipeline(Map.of("mode", "hang", "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        try (Connection c = db.connect()) {
            await("run RUNNING on replica A").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> row(c, "select status, owner_instance from pipeline_run where id = ?", run)
                            .map(r -> "RUNNING".equals(r.get("status")) && "replica-a".equals(r.get("owner_instance")))
                            .orElse(false));
            await("connector pids recorded").atMost(Duration.ofSeconds(30)).until(() -> ItSupport.pids(pids).size() == 2);

            a.kill().forEach(h -> orphans.add(h.pid()));
            orphans.addAll(ItSupport.pids(pids));

            await("replica B reaps the run").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> row(c, "select status from pipeline_run where id = ?", run)
                            .map(r -> "FAILED".equals(r.get("status"))).orElse(false));
            Map<String, Object> r = row(c, "select error_summary, failed_component, ended_at from pipeline_run"
                    + " where id = ?", run).orElseThrow();
            assertEquals(RunMonitor.HEARTBEAT_LOST, r.get("error_summary"));
            assertTrue(((String) r.get("error_summary")).startsWith("heartbeat lost"));
            assertEquals("service", r.get("failed_component"));
        }
        // the reaper logs after its transaction commits: the line may follow the status by a moment
        await("replica B logs the reap").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> b.log().contains(run + " failed: heartbeat lost"));
    }
}
