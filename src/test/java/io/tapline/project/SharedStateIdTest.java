package io.tapline.project;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.project.ProjectImportTest.actions;
import static io.tapline.project.ProjectImportTest.importYaml;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.awaitLog;
import static io.tapline.support.Connectors.stateId;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Meltano jobs of one tap and target share a state ID ({@code tap map target} and
 * {@code tap target dbt:run} both run under {@code <env>:tap-to-target}). The import makes a
 * pipeline of each (it used to keep one and drop the other); they share the bookmarks, and the one
 * active run per state ID keeps them from running together.
 */
@QuarkusTest
class SharedStateIdTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void twoJobsOnOneStateIdAreBothImportedAndNeverRunTogether() throws Exception {
        String tap = unique("tap-shared");
        String target = unique("target-shared");
        String mapper = unique("map-shared");
        String mapping = unique("hide-shared");
        String plain = unique("job-plain");
        String mapped = unique("job-mapped");
        String env = unique("shared");
        Path release = Files.createTempDirectory("shared").resolve("release");
        String yaml = """
                default_environment: %s
                environments: [{name: %s}]
                plugins:
                  extractors:
                    - name: %s
                      namespace: tap_shared
                      executable: %s
                      capabilities: [state]
                      config: {mode: wait-file, release_file: %s}
                  loaders:
                    - name: %s
                      namespace: target_shared
                      executable: %s
                  mappers:
                    - name: %s
                      namespace: map_shared
                      executable: %s
                      mappings: [{name: %s, config: {}}]
                jobs:
                  - name: %s
                    tasks: ["%s %s"]
                  - name: %s
                    tasks: ["%s %s %s"]
                """.formatted(env, env, tap, Connectors.TAP, release, target, Connectors.TARGET, mapper,
                Path.of("src/test/resources/connectors/echo_lines.py").toAbsolutePath(), mapping,
                plain, tap, target, mapped, tap, mapping, target);
        JsonPath plan = importYaml(yaml, "").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(plain, mapped), plan.getList("pipelines.name"), plan.prettify());
        assertEquals(List.of("create", "create"), actions(plan, "pipelines"));
        assertTrue(plan.getList("unsupported.reason").stream().noneMatch(r -> String.valueOf(r).contains("state ID")),
                plan.prettify());
        String shared = env + ":" + tap + "-to-" + target;
        assertEquals(shared, stateId(plain));
        assertEquals(shared, stateId(mapped));

        // While one runs, the other is refused with the active run named, as for one pipeline.
        String first = trigger(plain, Map.of());
        awaitLog(first, "WAITING", WAIT);
        problem(json().body(Map.of()).post("/api/v1/pipelines/" + mapped + "/runs").then(), 409, "run-active")
                .body("activeRunId", equalTo(first))
                .body("detail", containsString(plain));
        Files.writeString(release, "go");
        awaitEnd(first, WAIT).then().body("status", equalTo("SUCCEEDED"));

        // Afterwards the other runs, from the bookmark the first one left (the state ID is shared).
        json().get("/api/v1/states/" + shared).then().statusCode(200)
                .body("singer_state.bookmarks.items.id", equalTo("after-wait"));
        String second = json().body(Map.of()).post("/api/v1/pipelines/" + mapped + "/runs").then().statusCode(202)
                .extract().path("id");
        awaitLog(second, "STATE-FILE", WAIT);
        String log = json().accept("text/plain").get("/api/v1/runs/" + second + "/log").asString();
        assertTrue(log.contains("after-wait"), log);

        // Importing again changes nothing; a pipeline made through the API may share the state ID too,
        // and is told with whom.
        JsonPath again = importYaml(yaml, "?dryRun=true").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "pipelines"), again.prettify());
        json().body(Map.of("name", unique("outsider"), "extractor", tap, "loader", target, "environment", env))
                .post("/api/v1/pipelines").then().statusCode(201)
                .body("warnings[0]", org.hamcrest.Matchers.containsString(mapped));
        awaitEnd(second, WAIT).then().body("status", equalTo("SUCCEEDED"));
    }
}
