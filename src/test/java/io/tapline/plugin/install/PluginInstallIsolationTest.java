package io.tapline.plugin.install;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
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
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 item 4: what the code of a pip_url can reach when the service installs it. The build
 * backend of a local source package (run by pip, with the install's environment) sees none of the
 * service's variables beyond {@link InstallEnv}'s allow-list: not the canary
 * {@value #CANARY} that the surefire configuration (pom.xml) puts in the test service's
 * environment, nor any other. A plugin's own {@code python} outside
 * {@code tapline.security.executable-dirs} is refused: 400 when written as an absolute path, 400
 * on {@code :install} and a failed run with the reason when it is a command name found outside.
 */
@QuarkusTest
@TestProfile(PluginInstallIsolationTest.PluginsAndConnectors.class)
class PluginInstallIsolationTest {

    /** A variable of the test service's environment that stands for its secrets (pom.xml, surefire). */
    static final String CANARY = "TAPLINE_TEST_INSTALL_CANARY";
    private static final Duration WAIT = Duration.ofSeconds(240);
    private static final Path DIRS_CONNECTORS = Connectors.TARGET.getParent();

    /** Executables may lie in the plugins directory and the test connectors' directory only. */
    public static class PluginsAndConnectors implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.security.executable-dirs", InstallTests.PLUGINS + "," + DIRS_CONNECTORS);
        }
    }

    @Test
    void aBuildBackendSeesNoneOfTheServicesVariablesBeyondTheAllowList() throws Exception {
        String canary = System.getenv(CANARY);
        assertNotNull(canary, CANARY + " must be set in the test JVM's environment (pom.xml, surefire)");
        String tap = unique("tap-envdump");
        Path dumps = TestPackages.ROOT.resolve(tap + "-dumps");
        Path src = TestPackages.envSource(tap + "-src", dumps, false);
        String p = InstallTests.pipeline(tap, src.toString(), "tap-envdump", Map.of());

        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).body("streams.tiny.records", equalTo(3));

        List<InstallTests.Dump> all = InstallTests.dumps(dumps);
        assertEquals(1, all.size(), "one build");
        InstallTests.Dump d = all.get(0);
        assertFalse(d.env().containsKey(CANARY), d.text());
        assertFalse(d.text().contains(canary), d.text());
        for (String name : d.env().keySet()) {
            assertTrue(InstallTests.allowed(name), "a variable outside the allow-list reached the build: " + name);
        }
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            String name = e.getKey();
            if (!InstallEnv.NAMES.contains(name) && !name.startsWith("LC_") && !List.of("PATH", "HOME", "TMPDIR",
                    "PIP_DISABLE_PIP_VERSION_CHECK", "PIP_NO_INPUT", "PYTHONUNBUFFERED").contains(name)) {
                assertNotEquals(e.getValue(), d.env().get(name), "the service's " + name + " reached the build");
            }
        }
        // pip puts its build environment's bin/ directories first
        assertTrue(d.env().get("PATH").endsWith(":" + System.getenv("PATH")), d.env().get("PATH"));
        assertEquals(System.getenv().getOrDefault("HOME", System.getProperty("user.home")), d.env().get("HOME"));
        assertEquals("1", d.env().get("PIP_NO_INPUT"));
    }

    @Test
    void aPluginPythonOutsideTheAllowedDirectoriesIsRefused() {
        String dirs = InstallTests.PLUGINS + ", " + DIRS_CONNECTORS;
        // An absolute path is refused when the plugin is written.
        String abs = unique("tap-py-abs");
        problem(json().body(Map.of("name", abs, "executable", "tap-x", "pipUrl", "tap-x",
                        "extras", Map.of("python", "/usr/bin/python3")))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("extras.python"))
                .body("errors[0].message", equalTo("must lie in one of the directories allowed by"
                        + " tapline.security.executable-dirs (" + dirs + ")"));

        // A command name is looked up on PATH when it is used: :install is 400, a run fails, nothing starts.
        String tap = unique("tap-py-name");
        String p = InstallTests.pipeline(tap, "tap-x==1.0", "tap-x", Map.of("python", "python3"));
        Path found = ExecutablePolicy.resolve("python3", System.getenv("PATH"), Path.of("").toAbsolutePath())
                .orElseThrow();
        String reason = "the extractors/" + tap + " python executable " + found + " (python3) is outside the"
                + " directories allowed by tapline.security.executable-dirs (" + dirs + "); leave the plugin's python"
                + " unset to use tapline.plugins.python, or add its directory to tapline.security.executable-dirs";
        problem(json().post("/api/v1/plugins/extractors/" + tap + ":install").then(), 400, "validation")
                .body("errors[0].field", equalTo("extras.python"))
                .body("errors[0].message", equalTo(reason));
        awaitEnd(trigger(p, Map.of()), WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", equalTo("installing extractors/" + tap + " failed: " + reason));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs").then().body("items", hasSize(0));
        assertFalse(Files.exists(InstallTests.PLUGINS.resolve("extractors").resolve(tap)), "nothing was started");
        json().get("/api/v1/plugins/extractors/" + tap).then().body("install.installed", equalTo(false))
                .body("extras.python", containsString("python3"));
    }
}
