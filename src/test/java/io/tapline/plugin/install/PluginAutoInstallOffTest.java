package io.tapline.plugin.install;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * With {@code tapline.plugins.auto-install=false} (images that pre-install everything) a run never
 * installs: it fails saying how to install, and runs once {@code :install} has installed the plugin.
 */
@QuarkusTest
@TestProfile(PluginAutoInstallOffTest.AutoInstallOff.class)
class PluginAutoInstallOffTest {

    private static final Duration WAIT = Duration.ofSeconds(240);

    /** Auto-install off, in its own plugins directory. */
    public static class AutoInstallOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.plugins.auto-install", "false", "tapline.plugins.dir", "target/test-plugins-manual");
        }
    }

    @Test
    void aRunDoesNotInstallAndSaysHowToUntilTheInstallEndpointHasInstalledIt() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        String tap = unique("tap-manual");
        json().body(Map.of("name", tap, "executable", "tap-tiny", "pipUrl", wheel)).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        String target = unique("target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String p = unique("pl");
        json().body(Map.of("name", p, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);

        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", equalTo("installing extractors/" + tap + " failed: it is not installed on this"
                        + " replica and tapline.plugins.auto-install is false; install it with POST /api/v1/plugins/"
                        + "extractors/" + tap + ":install"));

        int id = json().post("/api/v1/plugins/extractors/" + tap + ":install").then().statusCode(202)
                .extract().path("id");
        await().atMost(WAIT).until(() -> "SUCCEEDED".equals(json().get("/api/v1/plugins/extractors/" + tap
                + "/installs/" + id).then().extract().path("status")));
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("streams.tiny.records", equalTo(3));
    }
}
