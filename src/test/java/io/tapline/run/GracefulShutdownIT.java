package io.tapline.run;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.support.Connectors;
import io.tapline.support.ItSupport;
import io.tapline.support.ServiceProcess;
import io.tapline.support.TestPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.tapline.support.Api.json;
import static io.tapline.support.ItSupport.row;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM to the packaged service (as Kubernetes stops a pod) while a pipeline runs: the service
 * stops claiming, sends SIGTERM to the run's connectors, waits for the target to flush, stores the
 * state the target acknowledged last, marks the run CANCELLED ("service shutdown") and only then
 * exits; no connector process is left. Once against an external PostgreSQL, once with the embedded
 * one, which must not stop before the runs are recorded.
 */
class GracefulShutdownIT {

    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** What test_target.py "flush-on-sigterm" prints on SIGTERM after the tap's "before-hang" state. */
    private static final JsonNode FLUSHED = ItSupport.json(
            "{\"bookmarks\": {\"items\": {\"id\": \"before-hang\"}}, \"flushed\": true}");

    private final List<Long> connectorPids = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        ItSupport.killAll(connectorPids);
        ItSupport.reset();
    }

    @Test
    void sigtermCancelsTheRunWithItsFlushedStateOnAnExternalDatabase() throws Exception {
        try (TestPostgres.Database db = TestPostgres.shared().createDatabase("it_shutdown");
             ServiceProcess service = ServiceProcess.start("shutdown-ext", db, Map.of(
                     "TAPLINE_RUNNER_TERMINATE_GRACE", "2s",
                     "TAPLINE_RUNNER_SHUTDOWN_GRACE", "15s"))) {
            service.awaitReady(STARTUP);
            Started run = startHangingRun(service);
            service.sigterm();
            service.awaitExit(WAIT);

            try (Connection c = db.connect()) {
                checkDatabase(c, run);
            }
            checkAfterExit(service, run);
        }
    }

    @Test
    void sigtermCancelsTheRunBeforeTheEmbeddedDatabaseStops() throws Exception {
        Path pgdata = Files.createTempDirectory("tapline-it-embedded");
        try (ServiceProcess service = ServiceProcess.start("shutdown-emb", Map.of(
                "TAPLINE_DATABASE_EMBEDDED", "true",
                "TAPLINE_DATABASE_EMBEDDED_DIR", pgdata.toString(),
                "TAPLINE_RUNNER_TERMINATE_GRACE", "2s",
                "TAPLINE_RUNNER_SHUTDOWN_GRACE", "15s"))) {
            service.awaitReady(STARTUP);
            Started run = startHangingRun(service);
            service.sigterm();
            service.awaitExit(WAIT);

            // The service's server has stopped (else this one could not start on its data directory).
            try (EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(pgdata)
                    .setCleanDataDirectory(false).start();
                 Connection c = pg.getPostgresDatabase().getConnection()) {
                c.createStatement().execute("SET search_path TO tapline");
                checkDatabase(c, run);
            }
            checkAfterExit(service, run);
        } finally {
            deleteTree(pgdata);
        }
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A run whose tap emitted one STATE and hangs, whose target acknowledged it; state stored. */
    private Started startHangingRun(ServiceProcess service) throws Exception {
        ItSupport.use(service);
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        String pipeline = Connectors.pipeline(Map.of("mode", "hang", "pid_file", pids.toString()),
                Map.of("mode", "flush-on-sigterm", "pid_file", pids.toString()), Map.of());
        String stateId = Connectors.stateId(pipeline);
        String runId = Connectors.trigger(pipeline, Map.of());
        await("run RUNNING with its first state stored").atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() ->
                "RUNNING".equals(json().get("/api/v1/runs/" + runId).then().extract().path("status"))
                        && Connectors.state(stateId).contains("before-hang"));
        await("both connector pids recorded").atMost(WAIT).until(() -> ItSupport.pids(pids).size() == 2);
        connectorPids.addAll(ItSupport.pids(pids));
        connectorPids.forEach(pid -> assertTrue(ItSupport.alive(pid), "connector " + pid + " runs"));
        return new Started(UUID.fromString(runId), pipeline, stateId);
    }

    private static void checkDatabase(Connection c, Started run) throws Exception {
        Map<String, Object> r = row(c, "select status, error_summary, failed_component, state_after, ended_at"
                + " from pipeline_run where id = ?", run.id).orElseThrow();
        assertEquals("CANCELLED", r.get("status"), r.toString());
        assertEquals("service shutdown", r.get("error_summary"), r.toString());
        assertTrue(r.get("ended_at") != null, r.toString());
        Map<String, Object> s = row(c, "select completed, partial from singer_state where state_id = ?",
                run.stateId).orElseThrow();
        assertEquals(FLUSHED, ItSupport.json((String) s.get("completed")).get("singer_state"),
                "the state the target acknowledged last (on SIGTERM) is stored: " + s);
        assertEquals(FLUSHED, ItSupport.json((String) r.get("state_after")).get("singer_state"));
    }

    private void checkAfterExit(ServiceProcess service, Started run) {
        ItSupport.awaitGone(connectorPids, Duration.ofSeconds(10));
        String log = service.log();
        assertTrue(log.contains("tapline stopped in"), "Quarkus finished its shutdown:\n" + service.logTail());
        // Production logs are JSON lines; the run's lines carry its id and pipeline in the MDC.
        boolean mdc = false;
        for (String line : log.split("\n")) {
            if (!line.startsWith("{")) {
                continue;
            }
            JsonNode entry = ItSupport.json(line);
            if (run.id.toString().equals(entry.path("mdc").path("runId").asText())) {
                assertEquals(run.pipeline, entry.path("mdc").path("pipeline").asText(), line);
                assertEquals(run.stateId, entry.path("mdc").path("stateId").asText(), line);
                mdc = true;
            }
        }
        assertTrue(mdc, "a JSON log line with the run's MDC:\n" + service.logTail());
        assertFalse(log.contains("Error Occurred After Shutdown"), service.logTail());
    }

    private record Started(UUID id, String pipeline, String stateId) {
    }
}
