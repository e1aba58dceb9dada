package io.tapline.plugin.install;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/**
 * {@code tapline.security.executable-dirs} applies to installed plugins: an environment outside the
 * allowed directories fails the run before anything is installed.
 */
@QuarkusTest
@TestProfile(PluginInstallExecutableDirsTest.OnlyTestConnectors.class)
class PluginInstallExecutableDirsTest {

    private static final Duration WAIT = Duration.ofSeconds(120);

    /** Allows only the test connectors' directory, not the plugins directory. */
    public static class OnlyTestConnectors implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.security.executable-dirs", Connectors.TARGET.getParent().toString());
        }
    }

    @Test
    void anEnvironmentOutsideTheAllowedDirectoriesFailsTheRunBeforeInstalling() {
        String tap = unique("tap-denied");
        json().body(Map.of("name", tap, "executable", "tap-tiny", "pipUrl", "tap-tiny==1.0.0"))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        String target = unique("target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String p = unique("pl");
        json().body(Map.of("name", p, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        Path exe = Path.of("target/test-plugins").toAbsolutePath().resolve("extractors").resolve(tap)
                .resolve("venv/bin/tap-tiny");
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", equalTo("the extractor executable " + exe + " (" + exe + ") is outside the"
                        + " directories allowed by tapline.security.executable-dirs (" + Connectors.TARGET.getParent()
                        + "); add tapline.plugins.dir to tapline.security.executable-dirs to run installed plugins"));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs").then().body("items", hasSize(0));
    }
}
