package io.tapline.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.state;
import static io.tapline.support.Connectors.stateId;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pipelines with {@code executor: meltano}, run by the stand-in {@code meltano}
 * (src/test/resources/connectors/fake_meltano.py, configured as {@code tapline.meltano.executable}).
 */
@QuarkusTest
class MeltanoExecutorTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The state mirror of the tests ({@code %test.tapline.state.mirror-dir}): state.json as Meltano writes it. */
    private static final Path MIRROR = Path.of("target/test-state-mirror");

    /** A Meltano project directory, an extractor, a loader and a meltano pipeline; returns the pipeline name. */
    static String pipeline(Path record, Map<String, Object> extra, Map<String, String> env) throws Exception {
        Path project = Files.createTempDirectory("meltano-project");
        Files.writeString(project.resolve("meltano.yml"), "version: 1\ndefault_environment: dev\n");
        String tap = unique("tap-ml");
        String target = unique("target-ml");
        json().body(Map.of("name", tap, "executable", "tap-never-started")).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        json().body(Map.of("name", target, "executable", "target-never-started")).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        String name = unique("ml");
        Map<String, String> e = new LinkedHashMap<>(env);
        e.put("FAKE_MELTANO_RECORD", record.toString());
        Map<String, Object> body = new LinkedHashMap<>(extra);
        body.put("name", name);
        body.put("extractor", tap);
        body.put("loader", target);
        body.put("executor", "meltano");
        body.put("meltanoProjectDir", project.toString());
        body.put("env", e);
        json().body(body).post("/api/v1/pipelines").then().statusCode(201).body("executor", equalTo("meltano"));
        return name;
    }

    private static JsonNode record(Path record) throws Exception {
        return JSON.readTree(Files.readString(record));
    }

    private static String log(String run) {
        return json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
    }

    /** Waits until the state mirror holds exactly {@code expected} for the ID, and returns it. */
    private static void awaitMirror(String stateId, String expected) {
        await().atMost(WAIT).until(() -> {
            Path f = MIRROR.resolve(stateId).resolve("state.json");
            return Files.exists(f) && Files.readString(f).equals(expected);
        });
    }

    @Test
    void runsMeltanoWithTheExportedStateAndStoresWhatItWrote() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        String p = pipeline(record, Map.of(), Map.of());
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 5}}}}").put("/api/v1/states/" + id)
                .then().statusCode(200);
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("exitCodes.meltano", equalTo(0))
                .body("failedComponent", nullValue())
                .body("stateBefore.singer_state.bookmarks.items.id", equalTo(5))
                .body("stateAfter.singer_state.bookmarks.items.id", equalTo(8))
                .body("recordsTotal", equalTo(3));

        JsonNode r = record(record);
        String tap = json().get("/api/v1/pipelines/" + p).then().extract().path("extractor");
        String target = json().get("/api/v1/pipelines/" + p).then().extract().path("loader");
        assertEquals(List.of("--environment", "dev", "run", tap, target),
                JSON.convertValue(r.get("argv"), List.class));
        assertEquals(id, r.get("state_id").asText());
        assertTrue(r.get("state_backend_uri").asText().startsWith("file:///"), r.toString());
        // It read exactly what the service exported, and the service stored exactly what it wrote.
        assertEquals("{\"completed\": {\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 5}}}}, \"partial\": {}}",
                r.get("read").asText());
        String written = r.get("written").asText();
        assertEquals("{\"completed\": {\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 8}}}}, \"partial\": {}}",
                written);
        awaitMirror(id, written);
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":8}}}}\n", state(id));
        json().get("/api/v1/states/" + id + "/history").then()
                .body("items[0].source", equalTo("RUN")).body("items[0].runId", equalTo(run))
                .body("items[0].action", equalTo("meltano run"));

        String log = log(run);
        assertTrue(log.contains("meltano | stand-in stdout line"), log);
        assertTrue(log.contains("Reading state from Local Filesystem"), log);
        assertTrue(log.contains("stand-in read bookmark 5"), log);
        assertTrue(log.contains("meltano exited with code 0"), log);

        // A second run starts from what the first one stored.
        String second = trigger(p, Map.of());
        awaitEnd(second, WAIT).then().body("status", equalTo("SUCCEEDED"));
        assertTrue(log(second).contains("stand-in read bookmark 8"));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":11}}}}\n", state(id));
    }

    @Test
    void aFailingMeltanoFailsTheRunAndItsStateIsKeptUnderCheckpoint() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        String p = pipeline(record, Map.of(), Map.of("FAKE_MELTANO_MODE", "fail"));
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 5}}}}").put("/api/v1/states/" + id)
                .then().statusCode(200);
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("exitCodes.meltano", equalTo(1))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", containsString("meltano run failed (exit code 1)"))
                .body("errorSummary", containsString("Extractor failed"));
        // Meltano had already written the state the target acknowledged: CHECKPOINT keeps it.
        String written = record(record).get("written").asText();
        awaitMirror(id, written);
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":8}}}}\n", state(id));
    }

    @Test
    void theRealErrorOfMeltanoIsTheReasonWithoutColoursAndMetricsGiveTheCounts() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        String p = pipeline(record, Map.of(), Map.of("FAKE_MELTANO_MODE", "fail-loader"));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("loader"))
                .body("failure.type", equalTo("connector_exit"))
                .body("failure.component", equalTo("loader"))
                // Meltano 4.2.2's "<time> [error    ] meltano      Loader failed", without its decoration
                .body("errorSummary", equalTo("meltano run failed (exit code 1): Loader failed"))
                // the extractor's record_count only: the loader's METRIC line counts the same 3 records
                .body("streams.items.records", equalTo(3))
                .body("recordsTotal", equalTo(3));
        assertEquals("1", record(record).get("no_color").asText(), "NO_COLOR=1 for the meltano process");
        String log = log(run);
        assertTrue(log.contains("Block run completed"), log);
        assertTrue(log.indexOf('\u001B') < 0, "no escape sequence is stored: " + log);
        String stored = json().get("/api/v1/runs/" + run).asString();
        assertTrue(stored.indexOf('\u001B') < 0 && !stored.contains("\\u001b"), stored);

        String mapper = pipeline(record, Map.of(), Map.of("FAKE_MELTANO_MODE", "fail-mapper"));
        awaitEnd(trigger(mapper, Map.of()), WAIT).then().body("failedComponent", equalTo("mapper"))
                .body("failure.component", equalTo("mapper"))
                .body("errorSummary", equalTo("meltano run failed (exit code 1): Unexpected completion sequence in"
                        + " ExtractLoadBlock set. Intermediate block (likely a mapper) failed."));
    }

    @Test
    void aSecretInMeltanosLastErrorLineIsMaskedInTheReason() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        Path secret = Files.createTempFile("meltano-secret", ".txt");
        Files.writeString(secret, "pw-meltano-7f3a9q");
        String p = pipeline(record, Map.of(), Map.of("FAKE_MELTANO_MODE", "fail-secret",
                "FAKE_MELTANO_SECRET", "${file:" + secret + "}"));
        String run = trigger(p, Map.of());
        String end = awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("Could not connect with password ********"))
                .extract().asString();
        assertFalse(end.contains("pw-meltano-7f3a9q"), end);
        assertFalse(log(run).contains("pw-meltano-7f3a9q"));
        assertFalse(json().get("/api/v1/events?limit=100").asString().contains("pw-meltano-7f3a9q"));
    }

    @Test
    void aPluginMeltanoCannotStartIsAConfigurationFailureOfThatPlugin() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        String p = pipeline(record, Map.of("retry", Map.of("maxAttempts", 3, "backoffSeconds", 0,
                "maxBackoffSeconds", 0)), Map.of("FAKE_MELTANO_MODE", "cannot-start"));
        String tap = json().get("/api/v1/pipelines/" + p).then().extract().path("extractor");
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("failure.type", equalTo("configuration"))
                .body("failure.retryable", equalTo(false))
                .body("errorSummary", containsString("Cannot start plugin " + tap + ": Executable"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() ->
                json().queryParam("pipeline", p).get("/api/v1/runs").jsonPath().getList("items").size() == 1);
    }

    @Test
    void onSuccessDiscardsTheStateOfAFailedMeltanoRun() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        String p = pipeline(record, Map.of("stateCommitPolicy", "ON_SUCCESS"), Map.of("FAKE_MELTANO_MODE", "fail"));
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 5}}}}").put("/api/v1/states/" + id)
                .then().statusCode(200);
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("warnings", hasItem(containsString("ON_SUCCESS")));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":5}}}}\n", state(id));
    }

    @Test
    void aJobWithASuffixAndItsOwnStateBackendDirectory() throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        Path backend = Files.createTempDirectory("meltano-backend");
        String p = pipeline(record, Map.of("stateIdSuffix", "blue", "meltanoJob", "nightly-job",
                "meltanoStateBackendDir", backend.toString()), Map.of());
        String id = stateId(p);
        assertTrue(id.endsWith(":blue"), id);
        json().body(Map.of("env", Map.of("FAKE_MELTANO_RECORD", record.toString(), "FAKE_MELTANO_JOB_STATE_ID", id),
                        "extractor", json().get("/api/v1/pipelines/" + p).then().extract().path("extractor"),
                        "loader", json().get("/api/v1/pipelines/" + p).then().extract().path("loader"),
                        "stateIdSuffix", "blue", "meltanoJob", "nightly-job", "executor", "meltano",
                        "meltanoProjectDir", json().get("/api/v1/pipelines/" + p).then().extract().path("meltanoProjectDir"),
                        "meltanoStateBackendDir", backend.toString()))
                .put("/api/v1/pipelines/" + p).then().statusCode(200);
        String run = trigger(p, Map.of("fullRefresh", true));
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED"));
        JsonNode r = record(record);
        assertEquals(List.of("--environment", "dev", "run", "--state-id-suffix", "blue", "--full-refresh", "nightly-job"),
                JSON.convertValue(r.get("argv"), List.class));
        assertEquals("file://" + backend.toRealPath(), r.get("state_backend_uri").asText());
        assertEquals(r.get("written").asText(), Files.readString(backend.resolve(id).resolve("state.json")),
                "a configured state backend directory is kept after the run");
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":3}}}}\n", state(id));
    }

    @Test
    void meltanoPipelinesAreValidated() {
        String tap = unique("tap-mv");
        String target = unique("target-mv");
        json().body(Map.of("name", tap, "executable", "x")).post("/api/v1/plugins/extractors").then().statusCode(201);
        json().body(Map.of("name", target, "executable", "x")).post("/api/v1/plugins/loaders").then().statusCode(201);
        problem(json().body(Map.of("name", unique("mv"), "extractor", tap, "loader", target, "executor", "meltano"))
                .post("/api/v1/pipelines").then(), 400, "validation")
                .body("errors[0].field", equalTo("meltanoProjectDir"));
        problem(json().body(Map.of("name", unique("mv"), "extractor", tap, "loader", target, "executor", "meltano",
                        "meltanoProjectDir", "/srv/project", "stateId", "custom-id"))
                .post("/api/v1/pipelines").then(), 400, "validation")
                .body("errors[0].field", equalTo("stateId"));
        problem(json().body(Map.of("name", unique("mv"), "extractor", tap, "loader", target, "executor", "airflow"))
                .post("/api/v1/pipelines").then(), 400, "validation")
                .body("errors.field", hasItem("executor"));
        problem(json().body(Map.of("name", unique("mv"), "extractor", tap, "loader", target, "executor", "meltano",
                        "meltanoProjectDir", "relative/dir"))
                .post("/api/v1/pipelines").then(), 400, "validation")
                .body("errors[0].field", equalTo("meltanoProjectDir"));
    }
}
