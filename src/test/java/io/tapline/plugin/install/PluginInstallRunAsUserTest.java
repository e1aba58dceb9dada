package io.tapline.plugin.install;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 31 item 4 with {@code tapline.runner.run-as-user=nobody} and the service running as root:
 * venv, pip and the build backend of the pip_url run as {@code nobody} (uid 65534), with a HOME and
 * TMPDIR of that user's in the plugin's directory and none of the service's variables beyond the
 * allow-list; what pip installed belongs to {@code nobody}, the environment's top directory and its
 * marker to the service; the tap then runs from it. Needs root and {@code setpriv}; skipped elsewhere.
 */
@QuarkusTest
@TestProfile(PluginInstallRunAsUserTest.AsNobody.class)
class PluginInstallRunAsUserTest {

    private static final Duration WAIT = Duration.ofSeconds(240);
    private static final int NOBODY = 65534;

    /**
     * Connectors and installs run as nobody, with an interpreter nobody can start (the python3 first
     * on this machine's PATH may be a shim under root's home).
     */
    public static class AsNobody implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.runner.run-as-user", "nobody", "tapline.plugins.python", "/usr/bin/python3");
        }
    }

    @BeforeAll
    static void onlyAsRoot() {
        assumeTrue("root".equals(System.getProperty("user.name")), "the service must run as root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is needed");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "/usr/bin/python3 is needed");
    }

    @Test
    void anInstallRunsAsTheInstallUserAndItsFilesAreThatUsers() throws Exception {
        String tap = unique("tap-envdump");
        Path dumps = TestPackages.ROOT.resolve(tap + "-dumps");
        Path src = TestPackages.envSource(tap + "-src", dumps, false);
        String p = InstallTests.pipeline(tap, src.toString(), "tap-envdump", Map.of());

        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).body("streams.tiny.records", equalTo(3));
        json().get("/api/v1/plugins/extractors/" + tap).then().body("install.installed", equalTo(true));

        Path dir = InstallTests.PLUGINS.resolve("extractors").resolve(tap);
        List<InstallTests.Dump> all = InstallTests.dumps(dumps);
        assertEquals(1, all.size());
        InstallTests.Dump d = all.get(0);
        assertEquals(NOBODY, d.uid(), "the build backend ran as nobody");
        assertEquals(dir.resolve(".home").toString(), d.env().get("HOME"));
        assertEquals(dir.resolve(".tmp").toString(), d.env().get("TMPDIR"));
        assertFalse(d.text().contains(System.getenv(PluginInstallIsolationTest.CANARY)), d.text());
        for (String name : d.env().keySet()) {
            assertTrue(InstallTests.allowed(name), "a variable outside the allow-list reached the build: " + name);
        }

        Path env = dir.resolve("venv").toRealPath();
        assertEquals(0, uid(env), "the environment's top directory is the service's");
        assertEquals(0, uid(env.resolve(PluginEnvironment.MARKER)), "so is the marker");
        assertEquals(NOBODY, uid(env.resolve("bin/tap-envdump")));
        assertEquals(NOBODY, uid(env.resolve("pyvenv.cfg")));
        try (Stream<Path> s = Files.walk(env.resolve("lib"))) {
            List<Path> notNobodys = s.filter(f -> uid(f) != NOBODY).toList();
            assertEquals(List.of(), notNobodys, "everything pip installed belongs to nobody");
        }
        assertEquals(NOBODY, uid(dir.resolve(".home")));
    }

    private static int uid(Path p) {
        try {
            return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
