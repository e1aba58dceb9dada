package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.fixture;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.state;
import static io.tapline.support.Connectors.stateId;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class RunEngineTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void replaysARealTapAndStoresWhatTheTargetAcknowledged() {
        String p = pipeline(Map.of("file", fixture("sdk-tap-sqlite.run1.tap-stdout.jsonl").toString()), Map.of(), Map.of());
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("exitCodes.extractor", equalTo(0))
                .body("exitCodes.loader", equalTo(0))
                .body("streams.main-orders.records", equalTo(3))
                .body("streams.main-orders.schemas", equalTo(1))
                .body("recordsTotal", equalTo(3))
                .body("stateLines", equalTo(1))
                .body("stateBefore", equalTo(Map.of()))
                .body("stateAfter.singer_state.bookmarks.main-orders.replication_key_value", equalTo("2024-01-03T00:00:00"));
        // Meltano stores the target's line re-serialised: compact get output
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"main-orders\":{\"replication_key\":\"updated_at\","
                + "\"replication_key_value\":\"2024-01-03T00:00:00\"}}}}\n", state(stateId(p)));
        json().get("/api/v1/states/" + stateId(p) + "/history").then()
                .body("items[0].source", equalTo("RUN")).body("items[0].runId", equalTo(run));
    }

    @Test
    void secondRunGetsTheStateFileAsMeltanoWritesIt() {
        String p = pipeline(Map.of("records", 3, "state_every", 3), Map.of(), Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"));
        String second = trigger(p, Map.of());
        awaitEnd(second, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + second + "/log").asString();
        // indent=2, no trailing newline: exactly json.dump(state, f, indent=2)
        assertTrue(log.contains("extractor | STATE-FILE {"), log);
        assertTrue(log.contains("\"bookmarks\": {"), log);
        assertTrue(log.contains("--state"), log);
        // full refresh: no state file, and the new state is merged
        String fr = trigger(p, Map.of("fullRefresh", true));
        awaitEnd(fr, WAIT).then().body("status", equalTo("SUCCEEDED")).body("fullRefresh", equalTo(true));
        String frLog = json().accept("text/plain").get("/api/v1/runs/" + fr + "/log").asString();
        assertFalse(frLog.contains("STATE-FILE"), frLog);
        json().queryParam("view", "split").get("/api/v1/states/" + stateId(p)).then()
                .body(containsString("\"partial\":{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":3}}}}"));
    }

    @Test
    void fullRefreshOfOneStreamDropsOnlyItsBookmark() {
        String p = pipeline(Map.of("records", 2, "state_every", 2), Map.of(), Map.of());
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 1}, \"other\": {\"v\": 9}}}}")
                .put("/api/v1/states/" + id).then().statusCode(200);
        String run = trigger(p, Map.of("fullRefreshStreams", List.of("items")));
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("\"other\": {"), "other streams keep their bookmark in the state file: " + log);
        assertFalse(log.contains("\"items\": {\n      \"id\": 1"), log);
        // merged: other stream kept, items replaced
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":2},\"other\":{\"v\":9}}}}\n", state(id));
    }

    @Test
    void tapCrashAfterStateKeepsAcknowledgedStateUnderCheckpoint() {
        String p = pipeline(Map.of("records", 4, "state_every", 2, "mode", "crash-after-state"), Map.of(), Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("exitCodes.extractor", equalTo(1))
                .body("errorSummary", containsString("Extractor failed"))
                .body("errorSummary", containsString("simulated crash"));
        // Meltano: the state the target acknowledged before the crash is kept
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":\"crash-point\"}}}}\n", state(stateId(p)));
    }

    @Test
    void tapCrashLeavesStateUnchangedUnderOnSuccess() {
        String p = pipeline(Map.of("records", 4, "state_every", 2, "mode", "crash-after-state"), Map.of(),
                Map.of("stateCommitPolicy", "ON_SUCCESS"));
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 0}}}}").put("/api/v1/states/" + id).then().statusCode(200);
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("warnings", hasItem(containsString("ON_SUCCESS")));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":0}}}}\n", state(id));
        // and a successful ON_SUCCESS run promotes its state
        String ok = pipeline(Map.of("records", 4, "state_every", 2), Map.of(), Map.of("stateCommitPolicy", "ON_SUCCESS"));
        awaitEnd(trigger(ok, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":4}}}}\n", state(stateId(ok)));
    }

    @Test
    void targetFailingBeforeAnyStateLeavesStateUnchanged() {
        String p = pipeline(Map.of("records", 10, "state_every", 5), Map.of("mode", "fail-before-state"), Map.of());
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 0}}}}").put("/api/v1/states/" + id).then().statusCode(200);
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("loader"))
                .body("exitCodes.loader", equalTo(3))
                .body("errorSummary", containsString("Loader failed"))
                .body("errorSummary", containsString("cannot connect"));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":0}}}}\n", state(id));
    }

    @Test
    void junkAndTruncatedLinesFromTheTargetAreCountedNeverStored() {
        String p = pipeline(Map.of("records", 6, "state_every", 2), Map.of("mode", "junk"), Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("stateLines", equalTo(3))
                .body("invalidStateLines", equalTo(6))
                .body("warnings", hasItem(containsString("not valid state")));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":6}}}}\n", state(stateId(p)));
    }

    @Test
    void anEmptyStateNeverWipesBookmarks() {
        String p = pipeline(Map.of("records", 2, "state_every", 1), Map.of("mode", "empty"), Map.of());
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 41}}}}").put("/api/v1/states/" + id).then().statusCode(200);
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("warnings", hasItem(containsString("empty state")));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":41}}}}\n", state(id));
    }

    @Test
    void aLineThatIsNotJsonFailsTheRunWithItsNumberAndExcerpt() {
        String p = pipeline(Map.of("mode", "garbage"), Map.of(), Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", containsString("line 2"))
                .body("errorSummary", containsString("this is not json"));
    }

    @Test
    void aFiftyMebibyteLineAndBytesThatAreNotUtf8PassUnchanged() throws Exception {
        Path digest = Files.createTempFile("digest", ".txt");
        String p = pipeline(Map.of("mode", "huge-line"), Map.of("mode", "digest", "output", digest.toString()), Map.of());
        awaitEnd(trigger(p, Map.of()), Duration.ofSeconds(120)).then().body("status", equalTo("SUCCEEDED"))
                .body("streams.big.records", equalTo(1))
                .body("streams.big.bytes", org.hamcrest.Matchers.greaterThan(50 * 1024 * 1024));
        String bin = pipeline(Map.of("mode", "non-utf8"), Map.of("output", digest.toString() + ".rec"), Map.of());
        awaitEnd(trigger(bin, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("streams.bin.records", equalTo(1));
        byte[] received = Files.readAllBytes(Path.of(digest + ".rec"));
        byte[] expected = "{\"type\": \"RECORD\", \"stream\": \"bin\", \"record\": {\"s\": \"\u00ff\u00fe\u00c3( raw\"}}\n"
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals(new String(expected, java.nio.charset.StandardCharsets.ISO_8859_1),
                new String(received, java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"bin\":{\"n\":1}}}}\n", state(stateId(bin)));
    }

    @Test
    void aSecondTriggerWhileRunningIs409AndCancelStopsEveryProcess() throws Exception {
        Path pids = Files.createTempFile("pids", ".txt");
        String p = pipeline(Map.of("mode", "fork-child", "pid_file", pids.toString()), Map.of(), Map.of());
        String run = trigger(p, Map.of());
        Connectors.awaitLog(run, "READY", WAIT);
        problem(json().body(Map.of()).post("/api/v1/pipelines/" + p + "/runs").then(), 409, "run-active")
                .body("activeRunId", equalTo(run));
        json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        awaitEnd(run, WAIT).then().body("status", equalTo("CANCELLED"))
                .body("errorSummary", containsString("cancelled"));
        assertNoProcessLeft(pids, run);
        // the state acknowledged before the cancel is kept
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":\"before-hang\"}}}}\n", state(stateId(p)));
        problem(json().post("/api/v1/runs/" + run + "/cancel").then(), 409, "invalid-transition");
    }

    @Test
    void aTimeoutKillsAProcessThatIgnoresSigterm() throws Exception {
        Path pids = Files.createTempFile("pids", ".txt");
        String p = pipeline(Map.of("mode", "ignore-sigterm", "pid_file", pids.toString()),
                Map.of("mode", "ignore-sigterm", "pid_file", pids.toString()), Map.of("timeoutSeconds", 2));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("service"))
                .body("errorSummary", containsString("timed out after 2 s"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("SIGKILL"), log);
        assertNoProcessLeft(pids, run);
    }

    @Test
    void transformRunsAfterASuccessfulExtractLoadOnly() throws Exception {
        Path out = Files.createTempFile("transform", ".json");
        Files.delete(out);
        json().body(Map.of("name", "dbt-" + out.getFileName().toString().replaceAll("[^a-z0-9]", ""),
                        "executable", Connectors.UTIL.toString(), "env", Map.of("TRANSFORM_OUT", out.toString())))
                .post("/api/v1/plugins/utilities").then().statusCode(201);
        String util = "dbt-" + out.getFileName().toString().replaceAll("[^a-z0-9]", "");
        String ok = pipeline(Map.of("records", 1), Map.of(), Map.of("transform", Map.of("plugin", util, "args", List.of("run", "--select", "x"))));
        String run = trigger(ok, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).body("exitCodes.transform", equalTo(0))
                .body("stages.name", equalTo(List.of("extract-load", "transform")))
                .body("stages.status", equalTo(List.of("SUCCEEDED", "SUCCEEDED")));
        assertEquals("[\"run\", \"--select\", \"x\"]", Files.readString(out));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("transform | transform stderr line"), log);
        Files.delete(out);
        String bad = pipeline(Map.of("mode", "crash-after-state"), Map.of(), Map.of("transform", Map.of("plugin", util)));
        awaitEnd(trigger(bad, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("exitCodes.transform", org.hamcrest.Matchers.nullValue());
        assertFalse(Files.exists(out), "the transform was skipped");
    }

    @Test
    void aMissingExecutableFailsTheRunWithAReadableReason() {
        String p = pipeline(Path.of("/nonexistent/tap-nope"), List.of(), Map.of(), Connectors.TARGET, Map.of(), Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("/nonexistent/tap-nope"));
    }

    @Test
    void configReferencesAreResolvedAtRunTimeAndMissingOnesFailClearly() {
        String p = pipeline(Map.of("mode", "env", "home", "${env:HOME}", "ref", "${MY_VAR}"), Map.of(),
                Map.of("env", Map.of("MY_VAR", "from-pipeline")));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("\"ref\": \"from-pipeline\""), log);
        assertFalse(log.contains(System.getenv("HOME") + "\""), "resolved env references are masked: " + log);
        String missing = pipeline(Map.of("token", "${env:TAPLINE_TEST_UNSET_VAR}"), Map.of(), Map.of());
        awaitEnd(trigger(missing, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("service"))
                .body("errorSummary", containsString("TAPLINE_TEST_UNSET_VAR"));
    }

    @Test
    void aFailedRunIsRetriedWithItsAttemptNumberUntilTheMaximum() {
        String p = pipeline(Map.of("mode", "crash-after-state"), Map.of(), Map.of("retry",
                Map.of("maxAttempts", 2, "backoffSeconds", 0, "maxBackoffSeconds", 0)));
        String first = trigger(p, Map.of());
        awaitEnd(first, WAIT).then().body("status", equalTo("FAILED")).body("attempt", equalTo(1));
        org.awaitility.Awaitility.await().atMost(WAIT).until(() ->
                json().queryParam("pipeline", p).get("/api/v1/runs").jsonPath().getList("items").size() == 2);
        String retry = json().queryParam("pipeline", p).get("/api/v1/runs").jsonPath().getString("items[0].id");
        awaitEnd(retry, WAIT).then().body("status", equalTo("FAILED")).body("attempt", equalTo(2))
                .body("trigger", equalTo("RETRY")).body("retryOf", equalTo(first));
        // no third attempt
        json().queryParam("pipeline", p).get("/api/v1/runs").then().body("items.size()", equalTo(2));
    }

    @Test
    void runHistoryFiltersAndPages() {
        String p = pipeline(Map.of("records", 1), Map.of(), Map.of());
        for (int i = 0; i < 3; i++) {
            awaitEnd(trigger(p, Map.of()), WAIT);
        }
        Response first = json().queryParam("pipeline", p).queryParam("limit", 2).get("/api/v1/runs");
        first.then().statusCode(200).body("items.size()", equalTo(2)).body("nextCursor", notNullValue())
                .body("items[0].pipeline", equalTo(p));
        json().queryParam("pipeline", p).queryParam("limit", 2).queryParam("cursor", first.jsonPath().getString("nextCursor"))
                .get("/api/v1/runs").then().body("items.size()", equalTo(1));
        json().queryParam("pipeline", p).queryParam("status", "succeeded").queryParam("trigger", "API")
                .get("/api/v1/runs").then().body("items.size()", equalTo(3));
        json().get("/api/v1/pipelines/" + p + "/runs").then().body("items.size()", equalTo(3));
        problem(json().queryParam("status", "DONE").get("/api/v1/runs").then(), 400, "validation");
        problem(json().queryParam("from", "yesterday").get("/api/v1/runs").then(), 400, "validation");
        problem(json().get("/api/v1/runs/not-a-uuid").then(), 404, "not-found");
    }

    private static void assertNoProcessLeft(Path pids, String run) throws Exception {
        List<String> lines = Files.readAllLines(pids);
        assertFalse(lines.isEmpty());
        for (String l : lines) {
            long pid = Long.parseLong(l.trim());
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        }
        // the forked children of the tap are found through its descendants
        for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
            String cmd = h.info().commandLine().orElse("");
            if (cmd.contains(run)) {
                throw new AssertionError("process left: " + h.pid() + " " + cmd);
            }
        }
    }
}
