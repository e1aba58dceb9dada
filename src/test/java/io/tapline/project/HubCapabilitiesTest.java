package io.tapline.project;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.common.json.Jsons;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hub plugins of a meltano.yml list no capabilities (Meltano takes them from the Hub): Tapline
 * asks the plugin ({@code --about --format=json}) before its first run and keeps the answer, so
 * the second run resumes from the first run's bookmark; a plugin that cannot answer gets Meltano's
 * conventional set with a warning; bookmarks a tap is not given are a warning and an event.
 */
@QuarkusTest
class HubCapabilitiesTest {

    private static final Path TAP = Path.of("src/test/resources/connectors/about_tap.py").toAbsolutePath();
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** A Hub-style project: no namespace and no capabilities on the tap; {@code tapExtra} is added to the tap's entry. */
    private static String project(String tap, String target, String schedule, Path argv, String aboutMode,
                                  String tapExtra) {
        return """
                version: 1
                default_environment: dev
                environments: [{name: dev}]
                plugins:
                  extractors:
                  - name: %s
                    variant: meltanolabs
                    executable: %s
                    config: {records: 3}
                    env: {ARGV_FILE: %s, ABOUT_MODE: %s}
                %s
                  loaders:
                  - name: %s
                    variant: meltanolabs
                    executable: %s
                schedules:
                - name: %s
                  interval: '@manual'
                  extractor: %s
                  loader: %s
                """.formatted(tap, TAP, argv, aboutMode, tapExtra, target, Connectors.TARGET, schedule, tap, target);
    }

    private static List<List<String>> argv(Path file) throws Exception {
        List<List<String>> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            out.add(Jsons.readStrings(line));
        }
        return out;
    }

    @Test
    void aHubPluginIsAskedBeforeItsFirstRunAndRun2ResumesFromRun1sBookmark() throws Exception {
        String tap = unique("hub-tap");
        String target = unique("hub-target");
        String pipeline = unique("hub-pl");
        Path argv = Files.createTempFile("argv", ".jsonl");
        ProjectImportTest.importYaml(project(tap, target, pipeline, argv, "answer", ""), "").then().statusCode(200);
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilities", equalTo(List.of())).body("capabilitiesSource", nullValue());
        List<Map<String, String>> findings = json().get("/api/v1/projects/assessment").jsonPath().getList("findings");
        assertTrue(findings.stream().anyMatch(f -> "capabilities-unknown".equals(f.get("code"))
                && ("extractors/" + tap).equals(f.get("subject"))), findings.toString());

        JsonPath run1 = awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(3)).extract().jsonPath();
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilities", equalTo(List.of("catalog", "discover", "state", "about")))
                .body("capabilitiesSource", equalTo("about")).body("aboutAt", not(nullValue()))
                .body("warnings", equalTo(List.of()));
        List<List<String>> calls = argv(argv);
        assertEquals(List.of("--about", "--format=json"), calls.get(0), calls.toString());
        List<String> sync1 = calls.get(calls.size() - 1);
        assertTrue(sync1.contains("--catalog"), "run 1 passes the discovered catalog: " + sync1);
        assertFalse(sync1.contains("--state"), "nothing stored before run 1: " + sync1);
        assertTrue(json().accept("text/plain").get("/api/v1/runs/" + run1.getString("id") + "/log").asString()
                .contains("it answered --about --format=json: catalog, discover, state, about"));

        awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(0)).body("stateWarnings", equalTo(List.of()));
        calls = argv(argv);
        List<String> sync2 = calls.get(calls.size() - 1);
        assertTrue(sync2.contains("--state"), "run 2 resumes: " + sync2);
        assertEquals(1, calls.stream().filter(c -> c.contains("--about")).count(), "asked once, then kept: " + calls);
        String state = Connectors.state(Connectors.stateId(pipeline));
        assertTrue(state.contains("\"items\":{\"id\":3}"), state);

        // The answer is the plugin's: a re-import of the same document changes nothing, and the
        // export writes no capabilities for the Hub plugin (Meltano takes them from the Hub).
        JsonPath again = ProjectImportTest.importYaml(project(tap, target, pipeline, argv, "answer", ""), "")
                .then().statusCode(200).extract().jsonPath();
        assertEquals("unchanged", again.getString("plugins.find { it.name == '" + tap + "' }.action"),
                again.prettify());
        String exported = ProjectImportTest.export();
        String entry = exported.substring(exported.indexOf("name: " + tap));
        entry = entry.substring(0, entry.indexOf("\n  - ") < 0 ? entry.length() : entry.indexOf("\n  - "));
        assertFalse(entry.contains("capabilities"), entry);
    }

    @Test
    void aPluginThatCannotAnswerGetsMeltanosConventionalSetWithAWarning() throws Exception {
        String tap = unique("mute-tap");
        String target = unique("mute-target");
        String pipeline = unique("mute-pl");
        Path argv = Files.createTempFile("argv", ".jsonl");
        ProjectImportTest.importYaml(project(tap, target, pipeline, argv, "fail", ""), "").then().statusCode(200);
        awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(3));
        String warning = json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilities", equalTo(List.of("catalog", "discover", "state")))
                .body("capabilitiesSource", equalTo("default"))
                .extract().jsonPath().getString("warnings[0]");
        assertTrue(warning.contains("--about failed (exit code 2)") && warning.contains("unrecognized arguments")
                && warning.contains("catalog, discover, state"), warning);
        // the loader (test_target.py) cannot answer either: no capabilities for a loader
        json().get("/api/v1/plugins/loaders/" + target).then().statusCode(200)
                .body("capabilities", equalTo(List.of())).body("capabilitiesSource", equalTo("default"));
        List<Map<String, String>> findings = json().get("/api/v1/projects/assessment").jsonPath().getList("findings");
        assertTrue(findings.stream().anyMatch(f -> "capabilities-assumed".equals(f.get("code"))
                && ("extractors/" + tap).equals(f.get("subject"))), findings.toString());
        awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(0));
        List<List<String>> calls = argv(argv);
        assertTrue(calls.get(calls.size() - 1).contains("--state"), calls.toString());
    }

    @Test
    void storedBookmarksATapIsNotGivenWarnOnTheRunAndAsAnEvent() throws Exception {
        String tap = unique("nostate-tap");
        String target = unique("nostate-target");
        String pipeline = unique("nostate-pl");
        Path argv = Files.createTempFile("argv", ".jsonl");
        ProjectImportTest.importYaml(project(tap, target, pipeline, argv, "answer", "    capabilities: []"), "")
                .then().statusCode(200);
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilitiesSource", equalTo("project"));
        awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(3)).body("stateWarnings", equalTo(List.of()));
        JsonPath run2 = awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(3))
                .body("stateWarnings.type", equalTo(List.of("state.not_passed")))
                .extract().jsonPath();
        String runId = run2.getString("id");
        assertTrue(run2.getList("warnings", String.class).stream().anyMatch(w -> w.contains("'state' capability")),
                run2.prettify());
        assertTrue(json().accept("text/plain").get("/api/v1/runs/" + runId + "/log").asString()
                .contains("has stored bookmarks, but the extractor does not declare the 'state' capability"));
        json().queryParam("pipeline", pipeline).queryParam("type", "state.not_passed").get("/api/v1/events")
                .then().statusCode(200).body("items.runId", hasItem(runId));
        List<List<String>> calls = argv(argv);
        assertTrue(calls.stream().noneMatch(c -> c.contains("--about") || c.contains("--state")), calls.toString());
    }

    @Test
    void aDiscoveryOfAPluginWithoutCapabilitiesAsksItFirstAndAStreamsReadStartsNothing() throws Exception {
        String tap = unique("api-tap");
        Path argv = Files.createTempFile("argv", ".jsonl");
        json().body(Map.of("name", tap, "executable", TAP.toString(), "env", Map.of("ARGV_FILE", argv.toString())))
                .post("/api/v1/plugins/extractors").then().statusCode(201).body("capabilitiesSource", nullValue());
        json().get("/api/v1/plugins/extractors/" + tap + "/streams").then().statusCode(409);
        assertEquals(List.of(), argv(argv), "a read starts no process");
        json().post("/api/v1/plugins/extractors/" + tap + ":discover").then().statusCode(200);
        List<List<String>> calls = argv(argv);
        assertEquals(List.of("--about", "--format=json"), calls.get(0), calls.toString());
        assertTrue(calls.get(1).contains("--discover"), calls.toString());
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilitiesSource", equalTo("about"));
    }

    @Test
    void aRunThatTimesOutWhileThePluginIsAskedStoresNothing() throws Exception {
        String tap = unique("slow-tap");
        Path argv = Files.createTempFile("argv", ".jsonl");
        json().body(Map.of("name", tap, "executable", TAP.toString(), "env", Map.of("ARGV_FILE", argv.toString(),
                "ABOUT_MODE", "hang"))).post("/api/v1/plugins/extractors").then().statusCode(201);
        String target = unique("slow-target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString(), "capabilities", List.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String pipeline = unique("slow-pl");
        json().body(Map.of("name", pipeline, "extractor", tap, "loader", target, "timeoutSeconds", 2))
                .post("/api/v1/pipelines").then().statusCode(201);
        awaitEnd(trigger(pipeline, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("timeout")).body("errorSummary", equalTo("timed out after 2 s"));
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilitiesSource", nullValue()).body("warnings", equalTo(List.of()));
        assertEquals(List.of(List.of("--about", "--format=json")), argv(argv), "only asked, never started");
    }
}
