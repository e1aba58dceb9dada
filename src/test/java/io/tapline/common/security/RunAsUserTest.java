package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 13 item 8: a connector started by a service running as root, with
 * {@code tapline.runner.run-as-user=nobody}, runs as {@code nobody}, still reads its config, and
 * cannot read the service's environment from {@code /proc/<service pid>/environ} (where the
 * database password and the encryption key would be). Without the setting (the old behaviour) the
 * same tap read it. Needs root and {@code setpriv}; skipped elsewhere.
 */
@QuarkusTest
@TestProfile(RunAsUserTest.AsNobody.class)
class RunAsUserTest {

    /** Connectors run as nobody. */
    public static class AsNobody implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.runner.run-as-user", "nobody");
        }
    }

    private static final Path PEEK = Path.of("src/test/resources/connectors/environ_peek_tap.py").toAbsolutePath();

    @BeforeAll
    static void onlyAsRoot() {
        assumeTrue("root".equals(System.getProperty("user.name")), "the service must run as root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is needed");
    }

    @Test
    void aConnectorRunAsAnotherUserCannotReadTheServicesEnvironment() {
        String p = Connectors.pipeline(PEEK, List.of(), Map.of("x", 1), Connectors.TARGET, Map.of(), Map.of());
        String run = trigger(p, Map.of());
        awaitEnd(run, Duration.ofSeconds(60)).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("extractor | ENVIRON DENIED errno 13"), log);
        assertTrue(log.contains("extractor | UID 65534"), log);
        assertTrue(log.contains("extractor | CONFIG READ"), log);
    }
}
