package io.tapline.run;

import io.tapline.support.Connectors;
import io.tapline.support.ItSupport;
import io.tapline.support.RestartablePostgres;
import io.tapline.support.ServiceProcess;
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
import java.util.UUID;

import static io.tapline.support.ItSupport.row;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Database outages longer than {@code tapline.runner.state-store-retry} (2 s here) and than the
 * heartbeat timeout (12 s here), under the packaged service: a run whose final acknowledged state
 * could not be stored ends, once the database is back, FAILED with the state-store failure, its
 * exit codes, stages and counts, under either commit policy (never SUCCEEDED without its state);
 * a run whose owner cannot write its heartbeat is fenced (its processes stopped) before the
 * heartbeat timeout, also a target that ignores SIGTERM under a terminate grace longer than the
 * timeout (SIGKILL {@code fence-kill-margin}, 3 s, before it); a SIGTERM during an outage stops
 * the service with one WARN line about the runs it could not record, no ERROR and no stack trace;
 * start-up refuses fence settings that cannot keep that promise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StateStoreOutageIT {

    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration TIMEOUT = Duration.ofSeconds(12);

    private RestartablePostgres pg;
    private ServiceProcess service;
    private final List<Long> connectorPids = new ArrayList<>();

    @BeforeAll
    void start() {
        pg = RestartablePostgres.start();
        service = ServiceProcess.start("state-store-outage", pg.database(), Map.of(
                // longer than the heartbeat timeout: a fenced run's grace is cut to the kill point
                "TAPLINE_RUNNER_TERMINATE_GRACE", "30s",
                "TAPLINE_RUNNER_SHUTDOWN_GRACE", "2s",
                "TAPLINE_RUNNER_STATE_STORE_RETRY", "2s",
                "TAPLINE_RUNNER_HEARTBEAT_INTERVAL", "1s",
                "TAPLINE_RUNNER_HEARTBEAT_TIMEOUT", TIMEOUT.toSeconds() + "s",
                "TAPLINE_RUNNER_FENCE_KILL_MARGIN", "3s",
                "TAPLINE_RUNNER_REAPER_INTERVAL", "1s"));
        service.awaitReady(STARTUP);
        ItSupport.use(service);
    }

    @AfterEach
    void databaseBack() {
        pg.startAgain();
    }

    @AfterAll
    void stop() {
        ItSupport.reset();
        if (service != null) {
            service.close();
        }
        ItSupport.killAll(connectorPids);
        if (pg != null) {
            pg.close();
        }
    }

    /** Starts a wait-file run, waits for its first state, stops the database and releases the tap. */
    private UUID runEndingDuringAnOutage(Map<String, Object> pipelineExtra, Duration outage) throws Exception {
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        Path release = service.dir().resolve("release-" + UUID.randomUUID());
        String pipeline = Connectors.pipeline(
                Map.of("mode", "wait-file", "release_file", release.toString(), "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), pipelineExtra);
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        await("connectors started").atMost(WAIT).until(() -> ItSupport.pids(pids).size() == 2);
        Connectors.awaitLog(run.toString(), "WAITING", WAIT);
        if (!pipelineExtra.containsKey("stateCommitPolicy")) {
            await("first state stored").atMost(WAIT).until(() -> Connectors.state(Connectors.stateId(pipeline))
                    .contains("before-wait"));
        }
        List<Long> p = ItSupport.pids(pids);
        connectorPids.addAll(p);
        pg.stop();
        Files.writeString(release, "go");
        ItSupport.awaitGone(p, WAIT);
        Thread.sleep(outage.toMillis());
        pg.startAgain();
        return run;
    }

    private Map<String, Object> awaitEnded(UUID run) throws Exception {
        try (Connection c = pg.database().connect()) {
            await("run recorded").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> row(c, "select status from pipeline_run where id = ?", run)
                            .map(r -> !"RUNNING".equals(r.get("status"))).orElse(false));
            return row(c, "select status, error_summary, failure_type, failure_retryable, failed_component,"
                    + " exit_codes, stages, records_total, state_after, warnings from pipeline_run where id = ?", run)
                    .orElseThrow();
        }
    }

    @Test
    @Order(1)
    void aStateThatCouldNotBeStoredEndsTheRunWithTheStateStoreFailureAndItsTrueFacts() throws Exception {
        UUID run = runEndingDuringAnOutage(Map.of(), Duration.ofSeconds(5));
        Map<String, Object> r = awaitEnded(run);
        assertEquals("FAILED", r.get("status"), r + "\n" + service.logTail());
        assertEquals("state_store", r.get("failure_type"), r.toString());
        assertEquals(Boolean.TRUE, r.get("failure_retryable"));
        assertEquals("service", r.get("failed_component"));
        assertTrue(((String) r.get("error_summary")).contains("after-wait"), "names the state not stored: " + r);
        assertEquals(ItSupport.json("{\"extractor\": 0, \"loader\": 0}"), ItSupport.json((String) r.get("exit_codes")));
        assertTrue(((String) r.get("stages")).contains("extract-load"), r.toString());
        assertFalse(((String) r.get("error_summary")).contains("heartbeat lost"), r.toString());
    }

    @Test
    @Order(2)
    void underOnSuccessARunWhoseStateWasNotStoredNeverSucceeds() throws Exception {
        UUID run = runEndingDuringAnOutage(Map.of("stateCommitPolicy", "ON_SUCCESS"), Duration.ofSeconds(5));
        Map<String, Object> r = awaitEnded(run);
        assertEquals("FAILED", r.get("status"), r + "\n" + service.logTail());
        assertEquals("state_store", r.get("failure_type"), r.toString());
        assertTrue(((String) r.get("error_summary")).contains("after-wait"), r.toString());
    }

    @Test
    @Order(3)
    void anOwnerWithoutHeartbeatStopsItsProcessesBeforeTheHeartbeatTimeout() throws Exception {
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        Path release = service.dir().resolve("never-" + UUID.randomUUID());
        String pipeline = Connectors.pipeline(
                Map.of("mode", "wait-file", "release_file", release.toString(), "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        await("connectors started").atMost(WAIT).until(() -> ItSupport.pids(pids).size() == 2);
        await("first state stored").atMost(WAIT).until(() -> Connectors.state(Connectors.stateId(pipeline))
                .contains("before-wait"));
        List<Long> p = ItSupport.pids(pids);
        connectorPids.addAll(p);
        long stopped = System.nanoTime();
        pg.stop();
        ItSupport.awaitGone(p, Duration.ofSeconds(30));
        long gone = (System.nanoTime() - stopped) / 1_000_000;
        assertTrue(gone < TIMEOUT.toMillis(), "processes stopped " + gone + " ms into the outage (heartbeat timeout "
                + TIMEOUT.toSeconds() + " s)");
        Thread.sleep(Math.max(0, TIMEOUT.toMillis() + 2000 - gone));
        pg.startAgain();
        Map<String, Object> r = awaitEnded(run);
        assertEquals("FAILED", r.get("status"), r + "\n" + service.logTail());
        assertEquals("state_store", r.get("failure_type"), r.toString());
        assertTrue(((String) r.get("error_summary")).contains("could not be reached"), r.toString());
    }

    @Test
    @Order(4)
    void aFencedTargetThatIgnoresSigtermIsDeadBeforeTheHeartbeatTimeoutAfterTheLastHeartbeat() throws Exception {
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        Path release = service.dir().resolve("never-" + UUID.randomUUID());
        String pipeline = Connectors.pipeline(
                Map.of("mode", "wait-file", "release_file", release.toString(), "pid_file", pids.toString()),
                Map.of("mode", "ignore-sigterm", "pid_file", pids.toString()), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        await("connectors started").atMost(WAIT).until(() -> ItSupport.pids(pids).size() == 2);
        await("first state stored").atMost(WAIT).until(() -> Connectors.state(Connectors.stateId(pipeline))
                .contains("before-wait"));
        List<Long> p = ItSupport.pids(pids);
        connectorPids.addAll(p);
        long lastHeartbeat;
        try (Connection c = pg.database().connect()) {
            lastHeartbeat = ((Number) row(c, "select extract(epoch from last_heartbeat_at) * 1000 as ms"
                    + " from pipeline_run where id = ?", run).orElseThrow().get("ms")).longValue();
        }
        pg.stop();
        // A heartbeat stored after the read above only moves the true deadline later.
        long left = lastHeartbeat + TIMEOUT.toMillis() - System.currentTimeMillis();
        ItSupport.awaitGone(p, Duration.ofMillis(Math.max(1, left)));
        pg.startAgain();
        Map<String, Object> r = awaitEnded(run);
        assertEquals("FAILED", r.get("status"), r + "\n" + service.logTail());
        assertEquals("state_store", r.get("failure_type"), r.toString());
        String log = io.tapline.support.Api.json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        // killed by the grace cut to the kill point, or by the fence's own SIGKILL at it
        assertTrue(log.contains("SIGKILL") && log.contains("loader pid(s) ["), log);
    }

    @Test
    @Order(5)
    void aSigtermDuringAnOutageStopsWithOneWarningAndNoErrorOrStackTrace() throws Exception {
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        Path release = service.dir().resolve("never-" + UUID.randomUUID());
        String pipeline = Connectors.pipeline(
                Map.of("mode", "wait-file", "release_file", release.toString(), "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), Map.of());
        String run = Connectors.trigger(pipeline, Map.of());
        await("connectors started").atMost(WAIT).until(() -> ItSupport.pids(pids).size() == 2);
        connectorPids.addAll(ItSupport.pids(pids));
        int outage = service.log().length();
        pg.stop();
        await("the outage noticed").atMost(WAIT).until(() -> service.log().substring(outage).contains("Heartbeat failed"));
        // from the SIGTERM on (the transaction manager logs its own rollbacks of the connections cut above)
        int from = service.log().length();
        service.sigterm();
        service.awaitExit(Duration.ofSeconds(90));
        List<String> lines = service.log().substring(from).lines().filter(l -> l.startsWith("{")).toList();
        List<String> errors = new ArrayList<>();
        List<String> stopped = new ArrayList<>();
        for (String line : lines) {
            var entry = ItSupport.json(line);
            if ("ERROR".equals(entry.path("level").asText()) || entry.has("exception")) {
                errors.add(line);
            }
            if (entry.path("message").asText().startsWith("Service stopped before the end of run(s)")) {
                stopped.add(entry.path("level").asText() + " " + entry.path("message").asText());
            }
        }
        assertEquals(List.of(), errors, "no ERROR and no stack trace from the SIGTERM on");
        assertEquals(1, stopped.size(), stopped.toString());
        assertTrue(stopped.get(0).startsWith("WARN ") && stopped.get(0).contains(run)
                && stopped.get(0).contains("heartbeat lost"), stopped.get(0));
    }

    @Test
    @Order(6)
    void startUpRefusesAFenceKillMarginThatLeavesNoRoomBeforeTheHeartbeatTimeout() throws Exception {
        // fenced after 4 s (two thirds of 6 s), to be killed 3 s before 6 s: before the fence point
        try (ServiceProcess refused = ServiceProcess.start("fence-refused", pg.database(), Map.of(
                "TAPLINE_RUNNER_HEARTBEAT_TIMEOUT", "6s",
                "TAPLINE_RUNNER_HEARTBEAT_INTERVAL", "1s",
                "TAPLINE_RUNNER_FENCE_KILL_MARGIN", "3s"))) {
            int code = refused.awaitExit(STARTUP);
            String log = refused.log();
            assertTrue(code != 0, "exit code " + code + "\n" + refused.logTail());
            assertTrue(log.contains("tapline.runner.fence-kill-margin=3s")
                    && log.contains("tapline.runner.heartbeat-timeout=6s"), refused.logTail());
        }
    }
}
