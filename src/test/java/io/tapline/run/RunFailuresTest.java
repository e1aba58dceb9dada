package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import io.tapline.support.TestDatabase;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Typed failures, the one end path (retries of reaped runs, RunEnded), discovery under supervision. */
@QuarkusTest
class RunFailuresTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    RunMonitor monitor;

    @Inject
    RunEndedRecorder ended;

    private static int runCount(String pipeline) {
        return json().queryParam("pipeline", pipeline).get("/api/v1/runs").jsonPath().getList("items").size();
    }

    @Test
    void aMissingExecutableIsAConfigurationFailureAndIsNeverRetried() {
        String p = pipeline(Path.of("/nonexistent/tap-missing"), List.of(), Map.of(), Connectors.TARGET, Map.of(),
                Map.of("retry", Map.of("maxAttempts", 3, "backoffSeconds", 0, "maxBackoffSeconds", 0)));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("configuration"))
                .body("failure.retryable", equalTo(false))
                .body("failure.component", equalTo("extractor"))
                .body("failure.message", containsString("/nonexistent/tap-missing"))
                .body("errorSummary", containsString("/nonexistent/tap-missing"));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> runCount(p) == 1);
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("run FAILED (configuration error): cannot start the extractor"), log);
        assertEquals("FAILED", ended.status(UUID.fromString(run)), "RunEnded sees the terminal row in its transaction");
        assertEquals(1, ended.times(UUID.fromString(run)));
    }

    @Test
    void anUnresolvableReferenceIsAConfigurationFailureOfTheService() {
        String p = pipeline(Map.of("token", "${env:TAPLINE_TEST_NEVER_SET}"), Map.of(),
                Map.of("retry", Map.of("maxAttempts", 2, "backoffSeconds", 0, "maxBackoffSeconds", 0)));
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("configuration")).body("failure.component", equalTo("service"))
                .body("failure.retryable", equalTo(false));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> runCount(p) == 1);
    }

    @Test
    void aReapedRunIsRetriedThroughTheOneEndPath() throws Exception {
        String p = pipeline(Map.of("records", 1), Map.of(),
                Map.of("retry", Map.of("maxAttempts", 2, "backoffSeconds", 0, "maxBackoffSeconds", 0)));
        UUID stale = UUID.randomUUID();
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement("""
                insert into pipeline_run (id, pipeline_id, pipeline_name, state_id, trigger, status, owner_instance,
                    started_at, last_heartbeat_at)
                select ?, id, name, state_id, 'API', 'RUNNING', 'dead-replica', now() - interval '10 minutes', ?
                from pipeline where name = ?
                """)) {
            ps.setObject(1, stale);
            ps.setObject(2, OffsetDateTime.now().minusMinutes(5));
            ps.setString(3, p);
            assertEquals(1, ps.executeUpdate());
        }
        assertTrue(monitor.reap(Instant.now()).contains(stale));
        json().get("/api/v1/runs/" + stale).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("lost_instance")).body("failure.retryable", equalTo(true))
                .body("errorSummary", equalTo(RunMonitor.HEARTBEAT_LOST));
        assertEquals("FAILED", ended.status(stale));
        await().atMost(WAIT).until(() -> runCount(p) == 2);
        String retry = json().queryParam("pipeline", p).queryParam("trigger", "RETRY").get("/api/v1/runs").jsonPath()
                .getString("items[0].id");
        awaitEnd(retry, WAIT).then().body("status", equalTo("SUCCEEDED")).body("trigger", equalTo("RETRY"))
                .body("retryOf", equalTo(stale.toString())).body("attempt", equalTo(2))
                .body("failure", nullValue());
        assertEquals("SUCCEEDED", ended.status(UUID.fromString(retry)));
    }

    @Test
    void aDiscoveryThatHangsWithItsStdoutOpenIsCancelledAndLeavesNoProcess() throws Exception {
        Path pids = Files.createTempFile("discover-pids", ".txt");
        String p = pipeline(Connectors.TAP, List.of("properties", "discover", "state"), Map.of("discover", "hang",
                "pid_file", pids.toString()), Connectors.TARGET, Map.of(), Map.of());
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 1}}}}")
                .put("/api/v1/states/" + Connectors.stateId(p)).then().statusCode(200);
        String run = trigger(p, Map.of());
        Connectors.awaitLog(run, "DISCOVERING", WAIT);
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("\"--state\"") && log.contains("\"--discover\""), "the tap has the state capability:"
                + " --state is passed to --discover, as Meltano does: " + log);
        long cancelled = System.nanoTime();
        json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        awaitEnd(run, Duration.ofSeconds(20)).then().body("status", equalTo("CANCELLED"))
                .body("failure.type", equalTo("cancelled"));
        long took = (System.nanoTime() - cancelled) / 1_000_000;
        assertTrue(took < 2000 + 8000, "ended " + took + " ms after the cancel (terminate grace 2 s)");
        for (String l : Files.readAllLines(pids)) {
            long pid = Long.parseLong(l.trim());
            await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        }
    }

    @Test
    void aDiscoveredCatalogIsUsedAndTheTimeoutStopsADiscoveryThatHangs() throws Exception {
        String ok = pipeline(Connectors.TAP, List.of("properties", "discover"), Map.of("records", 1), Connectors.TARGET,
                Map.of(), Map.of());
        String run = trigger(ok, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("discovering the catalog") && log.contains("\"--properties\""), log);
        Path pids = Files.createTempFile("discover-pids", ".txt");
        String hang = pipeline(Connectors.TAP, List.of("properties", "discover"), Map.of("discover", "hang",
                "pid_file", pids.toString()), Connectors.TARGET, Map.of(), Map.of("timeoutSeconds", 2));
        awaitEnd(trigger(hang, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("timeout")).body("errorSummary", equalTo("timed out after 2 s"));
    }

    @Test
    void aFailingMapperSaysItsExitCodeAndLastErrorLine() {
        String mapper = unique("map-bad");
        json().body(Map.of("name", mapper, "executable", Connectors.UTIL.toString(), "env",
                Map.of("TRANSFORM_EXIT", "2"))).post("/api/v1/plugins/mappers").then().statusCode(201);
        String p = pipeline(Map.of("records", 1), Map.of(), Map.of("mappers", List.of(mapper)));
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("mapper"))
                .body("exitCodes.'mapper:" + mapper + "'", equalTo(2))
                .body("errorSummary", equalTo("Mappers failed (mapper:" + mapper + ", exit code 2): transform stderr"
                        + " line"))
                .body("failure.type", equalTo("connector_exit"));
    }

    @Test
    void aTransformGetsItsSettingsAsEnvironmentVariablesNamedAsMeltanoNamesThem() throws Exception {
        Path envOut = Files.createTempFile("transform-env", ".json");
        String util = unique("envdump3");
        json().body(Map.of("name", util, "executable", Connectors.UTIL.toString(), "namespace", "envdump",
                        "variant", "meltanolabs",
                        "config", Map.of("input_dir", "/data/in", "nested", Map.of("depth", 2), "api_token", "tok-s3cret"),
                        "sensitive", List.of("api_token"), "env", Map.of("TRANSFORM_ENV_OUT", envOut.toString())))
                .post("/api/v1/plugins/utilities").then().statusCode(201);
        String p = pipeline(Map.of("records", 1), Map.of(), Map.of("transform", Map.of("plugin", util)));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).body("exitCodes.transform", equalTo(0));
        Map<?, ?> env = new com.fasterxml.jackson.databind.ObjectMapper().readValue(envOut.toFile(), Map.class);
        String prefix = util.toUpperCase().replaceAll("[^A-Z0-9]", "_");
        assertEquals("/data/in", env.get(prefix + "_INPUT_DIR"), env.toString());
        assertEquals("2", env.get(prefix + "_NESTED_DEPTH"));
        assertEquals("tok-s3cret", env.get(prefix + "_API_TOKEN"));
        assertEquals("/data/in", env.get("MELTANO_UTILIZE_INPUT_DIR"));
        assertEquals(util, env.get("MELTANO_UTILITY_NAME"));
        assertEquals(run, env.get("MELTANO_RUN_ID"));
        // each setting also under the namespace, and the namespace and variant themselves (Meltano's info_env)
        assertEquals("tok-s3cret", env.get("ENVDUMP_API_TOKEN"));
        assertEquals("/data/in", env.get("ENVDUMP_INPUT_DIR"));
        assertEquals("tok-s3cret", env.get("MELTANO_UTILIZE_API_TOKEN"));
        assertEquals("envdump", env.get("MELTANO_UTILITY_NAMESPACE"));
        assertEquals("meltanolabs", env.get("MELTANO_UTILITY_VARIANT"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertFalse(log.contains("tok-s3cret"), log);
        assertFalse(log.contains("transform.config.json"), log);
    }

    @Test
    void queuedCancelsAndForcedReleasesGoThroughTheEndPathToo() throws Exception {
        String p = pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        String run = trigger(p, Map.of());
        Connectors.awaitLog(run, "READY", WAIT);
        json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        awaitEnd(run, WAIT).then().body("status", equalTo("CANCELLED")).body("failure.type", equalTo("cancelled"))
                .body("failure.retryable", equalTo(false));
        assertEquals("CANCELLED", ended.status(UUID.fromString(run)));
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                "select failure_type, failure_retryable from pipeline_run where id = ?")) {
            ps.setObject(1, UUID.fromString(run));
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals("cancelled", rs.getString(1));
                assertFalse(rs.getBoolean(2));
            }
        }
    }

    @Test
    void aRunReapedByAnotherReplicaGetsItsTrueExitCodesAndStagesFromItsOwner() throws Exception {
        Path pids = Files.createTempFile("reaped-pids", ".txt");
        String p = pipeline(Map.of("mode", "hang", "pid_file", pids.toString()), Map.of(), Map.of());
        String run = trigger(p, Map.of());
        Connectors.awaitLog(run, "READY", WAIT);
        // what another replica's reaper writes (through its own end path) while this one cannot reach the database
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement("""
                update pipeline_run set status = 'FAILED', ended_at = now(), failed_component = 'service',
                    error_summary = ?, failure_type = 'lost_instance', failure_retryable = true
                where id = ? and status = 'RUNNING'
                """)) {
            ps.setString(1, RunMonitor.HEARTBEAT_LOST);
            ps.setObject(2, UUID.fromString(run));
            assertEquals(1, ps.executeUpdate());
        }
        await().atMost(WAIT).until(() -> json().get("/api/v1/runs/" + run).jsonPath()
                .getMap("exitCodes").containsKey("extractor"));
        json().get("/api/v1/runs/" + run).then().body("status", equalTo("FAILED"))
                .body("errorSummary", equalTo(RunMonitor.HEARTBEAT_LOST))
                .body("failure.type", equalTo("lost_instance"))
                .body("exitCodes.loader", org.hamcrest.Matchers.notNullValue())
                .body("stages.name", equalTo(List.of("extract-load")));
        for (String l : Files.readAllLines(pids)) {
            long pid = Long.parseLong(l.trim());
            await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        }
    }
}
