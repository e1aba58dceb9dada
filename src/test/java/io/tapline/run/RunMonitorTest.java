package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import io.tapline.support.TestDatabase;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.tapline.support.Api.json;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class RunMonitorTest {

    @Inject
    RunMonitor monitor;

    @Test
    void theReaperFailsRunsOfAnInstanceThatStoppedHeartbeating() throws Exception {
        UUID stale = UUID.randomUUID();
        UUID fresh = UUID.randomUUID();
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                "insert into pipeline_run (id, pipeline_name, state_id, trigger, status, owner_instance, started_at,"
                        + " last_heartbeat_at) values (?, 'ghost', ?, 'API', 'RUNNING', 'dead-replica', now() - interval '10 minutes', ?)")) {
            ps.setObject(1, stale);
            ps.setString(2, "ghost:" + stale);
            ps.setObject(3, java.time.OffsetDateTime.now().minusMinutes(5));
            ps.executeUpdate();
            ps.setObject(1, fresh);
            ps.setString(2, "ghost:" + fresh);
            ps.setObject(3, java.time.OffsetDateTime.now());
            ps.executeUpdate();
        }
        assertTrue(monitor.reap(Instant.now()).contains(stale));
        json().get("/api/v1/runs/" + stale).then().body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("service"))
                .body("errorSummary", equalTo(RunMonitor.HEARTBEAT_LOST));
        json().get("/api/v1/runs/" + fresh).then().body("status", equalTo("RUNNING"));
        // idempotent: a second sweep (another replica) changes nothing
        assertTrue(monitor.reap(Instant.now()).isEmpty() || !monitor.reap(Instant.now()).contains(stale));
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                "update pipeline_run set status = 'FAILED' where id = ?")) {
            ps.setObject(1, fresh);
            ps.executeUpdate();
        }
    }

    @Test
    void followStreamsTheLogUntilTheRunEnds() throws Exception {
        String p = Connectors.pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        String run = Connectors.trigger(p, Map.of());
        Connectors.awaitLog(run, "READY", Duration.ofSeconds(60));
        CompletableFuture<String> followed = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = json().accept("text/plain").queryParam("follow", "true")
                    .get("/api/v1/runs/" + run + "/log").asInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        String log = followed.get(60, TimeUnit.SECONDS);
        assertTrue(log.contains("extractor | READY"), log);
        assertTrue(log.contains("service | run CANCELLED"), log);
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                "select status from pipeline_run where id = ?")) {
            ps.setObject(1, UUID.fromString(run));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals("CANCELLED", rs.getString(1));
            }
        }
    }
}
