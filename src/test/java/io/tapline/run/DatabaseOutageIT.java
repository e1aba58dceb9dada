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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Database outages under the packaged service, with a PostgreSQL of the test's own that it stops
 * and starts again on the same data directory and port. While the database is down, readiness is
 * DOWN (503) and the service keeps running; once it is back, readiness comes back by itself. A run
 * that ends during the outage keeps retrying its final writes and is recorded, with its last
 * acknowledged state, once the database is back. The outages here last a few seconds; longer
 * ones up to {@code tapline.runner.state-store-retry} (60 s by default) behave the same.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DatabaseOutageIT {

    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private RestartablePostgres pg;
    private ServiceProcess service;
    private final List<Long> connectorPids = new ArrayList<>();

    @BeforeAll
    void start() {
        pg = RestartablePostgres.start();
        service = ServiceProcess.start("outage", pg.database(), Map.of(
                "TAPLINE_RUNNER_TERMINATE_GRACE", "2s",
                "TAPLINE_RUNNER_STATE_STORE_RETRY", "60s"));
        service.awaitReady(STARTUP);
    }

    @AfterEach
    void databaseBack() {
        pg.startAgain();
        ItSupport.reset();
    }

    @AfterAll
    void stop() {
        if (service != null) {
            service.close();
        }
        ItSupport.killAll(connectorPids);
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    @Order(1)
    void readinessIsDownWhileTheDatabaseIsUnreachableAndRecoversByItself() {
        assertEquals(200, service.status("/q/health/ready"));
        pg.stop();
        await("readiness DOWN").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> service.status("/q/health/ready") == 503);
        assertEquals(200, service.status("/q/health/live"), "liveness does not depend on the database");
        pg.startAgain();
        await("readiness UP again").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> service.status("/q/health/ready") == 200);
        assertTrue(service.process().isAlive());
    }

    @Test
    @Order(2)
    void aRunThatEndsDuringAnOutageIsRecordedWithItsFinalStateOnceTheDatabaseIsBack() throws Exception {
        ItSupport.use(service);
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        Path release = service.dir().resolve("release-" + UUID.randomUUID());
        String pipeline = Connectors.pipeline(
                Map.of("mode", "wait-file", "release_file", release.toString(), "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), Map.of());
        String stateId = Connectors.stateId(pipeline);
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        await("first state stored").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> Connectors.state(stateId).contains("before-wait"));
        await("connector pids recorded").atMost(WAIT).until(() -> ItSupport.pids(pids).size() == 2);
        connectorPids.addAll(ItSupport.pids(pids));

        pg.stop();
        // The tap prints its last STATE and ends; the target acknowledges it and ends: the run
        // is over while the database is down, and its final writes wait for it.
        Files.writeString(release, "go");
        ItSupport.awaitGone(connectorPids, WAIT);
        await("readiness DOWN").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> service.status("/q/health/ready") == 503);
        pg.startAgain();

        try (Connection c = pg.database().connect()) {
            await("run recorded").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> row(c, "select status from pipeline_run where id = ?", run)
                            .map(r -> !"RUNNING".equals(r.get("status"))).orElse(false));
            Map<String, Object> r = row(c, "select status, error_summary, state_after from pipeline_run where id = ?",
                    run).orElseThrow();
            assertEquals("SUCCEEDED", r.get("status"), r + "\n" + service.logTail());
            Map<String, Object> s = row(c, "select completed from singer_state where state_id = ?", stateId)
                    .orElseThrow();
            assertEquals(ItSupport.json("{\"bookmarks\": {\"items\": {\"id\": \"after-wait\"}}}"),
                    ItSupport.json((String) s.get("completed")).get("singer_state"), s.toString());
        }
        await("readiness UP again").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> service.status("/q/health/ready") == 200);
        assertTrue(service.process().isAlive(), "the service survived the outage");
        String log = service.log();
        assertTrue(log.contains("storing state failed, will retry") || log.contains("failed, will retry"),
                "the end-of-run writes were retried:\n" + service.logTail());
    }
}
