package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/** {@code tapline.security.executable-dirs}: plugins may only start executables from the listed directories. */
@QuarkusTest
@TestProfile(ExecutableDirsTest.OnlyTestConnectors.class)
class ExecutableDirsTest {

    /** Allows only the test connectors' directory. */
    public static class OnlyTestConnectors implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.security.executable-dirs", Connectors.TAP.getParent().toString(),
                    "tapline.meltano.executable", "/bin/true",
                    "tapline.meltano.project-dirs", "/srv/meltano-projects");
        }
    }

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void anAbsoluteExecutableOutsideTheDirectoriesIs400() {
        problem(json().body(Map.of("name", unique("tap-env"), "executable", "/usr/bin/env"))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("executable"))
                .body("detail", containsString("tapline.security.executable-dirs"));
        String name = unique("tap-ok");
        json().body(Map.of("name", name, "executable", Connectors.TAP.toString()))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        problem(json().body(Map.of("executable", "/bin/sh")).put("/api/v1/plugins/extractors/" + name).then(),
                400, "validation");
    }

    /**
     * Issue 13 item 6: {@code executor: meltano} used to start {@code tapline.meltano.executable}
     * whatever the allow-list, in any project directory.
     */
    @Test
    void theMeltanoExecutorIsBoundByTheAllowListsToo() {
        String tap = unique("tap-ml");
        String target = unique("target-ml");
        json().body(Map.of("name", tap, "executable", Connectors.TAP.toString())).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString())).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        problem(json().body(Map.of("name", unique("ml"), "extractor", tap, "loader", target, "executor", "meltano",
                        "meltanoProjectDir", "/etc", "meltanoStateBackendDir", "/etc/backend"))
                        .post("/api/v1/pipelines").then(), 400, "validation")
                .body("errors.field", org.hamcrest.Matchers.hasItems("meltanoProjectDir", "meltanoStateBackendDir",
                        "executor"))
                .body("errors.find { it.field == 'meltanoStateBackendDir' }.message",
                        containsString("tapline.meltano.state-backend-roots"))
                .body("errors.find { it.field == 'meltanoProjectDir' }.message",
                        containsString("tapline.meltano.project-dirs (/srv/meltano-projects)"))
                .body("errors.find { it.field == 'executor' }.message",
                        containsString("the meltano executable /bin/true (/bin/true) is outside the directories allowed"
                                + " by tapline.security.executable-dirs"));
    }

    @Test
    void aRunWhoseCommandResolvesOutsideTheDirectoriesFailsWithAReason() {
        String allowed = Connectors.pipeline(Map.of("records", 2), Map.of(), Map.of());
        awaitEnd(trigger(allowed, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"));

        // "python3" is a command name: accepted when declared, resolved on PATH when the run starts.
        String p = Connectors.pipeline(Path.of("python3"), List.of("state"), Map.of("records", 2),
                Connectors.TARGET, Map.of(), Map.of());
        String tap = json().get("/api/v1/pipelines/" + p).then().extract().path("extractor");
        json().body(Map.of("executable", "python3", "args", List.of(Connectors.TAP.toString()),
                "capabilities", List.of("state"), "config", Map.of("records", 2)))
                .put("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("service"))
                .body("errorSummary", containsString("the extractor executable "))
                .body("errorSummary", containsString("(python3) is outside the directories allowed by"
                        + " tapline.security.executable-dirs"));
    }
}
