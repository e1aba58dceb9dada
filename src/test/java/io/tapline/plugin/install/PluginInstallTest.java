package io.tapline.plugin.install;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginType;
import io.tapline.support.Connectors;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plugins whose tap is only a pip_url, installed by the service into
 * {@code target/test-plugins/<type>/<name>/venv} from local packages made by {@link TestPackages},
 * offline ({@code %test.tapline.plugins.pip-args=--isolated,--no-index}).
 */
@QuarkusTest
class PluginInstallTest {

    private static final Duration WAIT = Duration.ofSeconds(240);
    private static final Path PLUGINS = Path.of("target/test-plugins").toAbsolutePath();

    @Inject
    PluginRepository plugins;
    @Inject
    PluginInstallRepository installs;

    /** An extractor that is only a pip_url, the test target as loader, and a pipeline; returns the pipeline. */
    private static String pipeline(String tap, String pipUrl, String executable) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", tap);
        t.put("executable", executable);
        t.put("pipUrl", pipUrl);
        json().body(t).post("/api/v1/plugins/extractors").then().statusCode(201)
                .body("install.installed", equalTo(false))
                .body("install.executable", equalTo(PLUGINS.resolve("extractors").resolve(tap)
                        .resolve("venv/bin/" + executable).toString()));
        String target = unique("target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString(), "config", Map.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String name = unique("pl");
        json().body(Map.of("name", name, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        return name;
    }

    private static String log(String run) {
        return json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
    }

    @Test
    void aPipelineWhoseTapIsOnlyAPipUrlRunsAndTheSecondRunDoesNotReinstall() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        String tap = unique("tap-tiny");
        String p = pipeline(tap, wheel, "tap-tiny");

        String first = trigger(p, Map.of());
        awaitEnd(first, WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("streams.tiny.records", equalTo(3))
                .body("stages.name", hasItem("install:" + tap))
                .body("stateAfter.singer_state.bookmarks.tiny.id", equalTo(3));
        String log1 = log(first);
        assertTrue(log1.contains("install:" + tap + " | Successfully installed tap-tiny-1.0.0"), log1);
        assertTrue(log1.contains("install:" + tap + " | installed tap-tiny 1.0.0 into " + PLUGINS.resolve("extractors")
                .resolve(tap).resolve("venv")), log1);
        // the tap runs with its environment active, as Meltano runs it
        assertTrue(log1.contains("extractor | virtual env: " + PLUGINS.resolve("extractors").resolve(tap).resolve("venv")),
                log1);

        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("install.installed", equalTo(true))
                .body("install.outdated", equalTo(false))
                .body("install.distribution", equalTo("tap-tiny"))
                .body("install.version", equalTo("1.0.0"));
        json().get("/api/v1/plugins/extractors").then().statusCode(200)
                .body("items.find { it.name == '" + tap + "' }.install.version", equalTo("1.0.0"));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs").then().statusCode(200)
                .body("items", hasSize(1))
                .body("items[0].status", equalTo("SUCCEEDED"))
                .body("items[0].trigger", equalTo("RUN"))
                .body("items[0].runId", equalTo(first))
                .body("items[0].version", equalTo("1.0.0"))
                .body("items[0].log", nullValue());

        String second = trigger(p, Map.of());
        awaitEnd(second, WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("streams.tiny.records", equalTo(3))
                .body("stages.name", org.hamcrest.Matchers.not(hasItem("install:" + tap)));
        String log2 = log(second);
        assertTrue(log2.contains("extractors/" + tap + " is installed on this replica (tap-tiny 1.0.0)"), log2);
        assertFalse(log2.contains("install:" + tap + " |"), log2);
        json().get("/api/v1/plugins/extractors/" + tap + "/installs").then().body("items", hasSize(1));

        // A changed pip_url invalidates the environment: shown as outdated, and the next run reinstalls.
        Map<String, Object> changed = new LinkedHashMap<>();
        changed.put("executable", "tap-tiny");
        changed.put("pipUrl", "tap-tiny@file://" + wheel);
        json().body(changed).put("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("install.installed", equalTo(false))
                .body("install.outdated", equalTo(true));
        String third = trigger(p, Map.of());
        awaitEnd(third, WAIT).then().body("status", equalTo("SUCCEEDED")).body("stages.name", hasItem("install:" + tap));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs").then().body("items", hasSize(2));
    }

    @Test
    void aBadPipUrlFailsTheRunWithPipsMessage() {
        String tap = unique("tap-nope");
        String p = pipeline(tap, "tap-does-not-exist-zz==9.9", "tap-nope");
        String run = trigger(p, Map.of());
        String expected = "installing extractors/" + tap + " failed: pip found no distribution matching"
                + " 'tap-does-not-exist-zz==9.9' (unknown package name or version on the configured index): ERROR:"
                + " Could not find a version that satisfies the requirement tap-does-not-exist-zz==9.9 (from versions:"
                + " none) / ERROR: No matching distribution found for tap-does-not-exist-zz==9.9";
        awaitEnd(run, WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", equalTo(expected));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs").then()
                .body("items[0].status", equalTo("FAILED"))
                .body("items[0].failureType", equalTo("installation"))
                .body("items[0].retryable", equalTo(false));
        json().get("/api/v1/plugins/extractors/" + tap).then().body("install.installed", equalTo(false));
        assertFalse(Files.exists(PLUGINS.resolve("extractors").resolve(tap).resolve("venv")));
    }

    @Test
    void anInjectedPipOptionIsRefusedWith400() {
        String tap = unique("tap-evil");
        for (String bad : List.of("tap-x --index-url https://evil.example/simple",
                "tap-x '--extra-index-url=https://evil.example/simple'", "-r requirements.txt",
                "tap-x --trusted-host=evil.example", "-e --index-url=https://evil.example")) {
            problem(json().body(Map.of("name", tap, "executable", "tap-x", "pipUrl", bad))
                    .post("/api/v1/plugins/extractors").then(), 400, "validation")
                    .body("errors[0].field", equalTo("pipUrl"));
        }
        problem(json().body(Map.of("name", tap, "executable", "tap-x", "pipUrl", "tap-x",
                        "extras", Map.of("python", "python3 -c 'import os'")))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("extras.python"));
        // In an imported meltano.yml, the error names the YAML path.
        String yaml = "version: 1\ndefault_environment: dev\nenvironments: [{name: dev}]\nplugins:\n  extractors:\n"
                + "  - name: " + tap + "\n    pip_url: tap-x --index-url=https://evil.example/simple\n";
        problem(json().body(Map.of("yaml", yaml, "dryRun", true)).post("/api/v1/projects/import").then(), 400,
                "validation").body("errors.field", hasItem("plugins.extractors[0].pip_url"));

        // A pip_url stored before these checks existed is refused at install time.
        json().body(Map.of("name", tap, "executable", "tap-x", "pipUrl", "tap-x")).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        QuarkusTransaction.requiringNew().run(() -> plugins.findByTypeAndName(PluginType.EXTRACTORS, tap).orElseThrow()
                .pipUrl = "tap-x --index-url=https://evil.example/simple");
        problem(json().post("/api/v1/plugins/extractors/" + tap + ":install").then(), 400, "validation")
                .body("detail", containsString("--index-url"));
        // A plugin without a pip_url has nothing to install.
        String plain = unique("tap-plain");
        json().body(Map.of("name", plain, "executable", "tap-plain")).post("/api/v1/plugins/extractors")
                .then().statusCode(201).body("install", nullValue());
        problem(json().post("/api/v1/plugins/extractors/" + plain + ":install").then(), 400, "validation");
        problem(json().post("/api/v1/plugins/extractors/nope-" + plain + ":install").then(), 404, "not-found");
    }

    @Test
    void theInstallEndpointAnswers202WithTheRecordAndItsLog() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        String tap = unique("tap-api");
        json().body(Map.of("name", tap, "executable", "tap-tiny", "pipUrl", wheel)).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        var r = json().post("/api/v1/plugins/extractors/" + tap + ":install").then().statusCode(202)
                .body("status", equalTo("RUNNING")).body("trigger", equalTo("API")).extract();
        int id = r.path("id");
        assertEquals("/api/v1/plugins/extractors/" + tap + "/installs/" + id,
                java.net.URI.create(r.header("Location")).getPath());
        await().atMost(WAIT).until(() -> "SUCCEEDED".equals(json().get("/api/v1/plugins/extractors/" + tap
                + "/installs/" + id).then().extract().path("status")));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs/" + id).then()
                .body("version", equalTo("1.0.0"))
                .body("failureType", nullValue())
                .body("log", containsString("Successfully installed tap-tiny-1.0.0"));
        json().get("/api/v1/plugins/extractors/" + tap).then().body("install.installed", equalTo(true));
    }

    /**
     * Issue 31 item 11: a RUNNING install whose owner still beats (another replica installing under
     * the same path on its own disk, or waiting for the file lock) is not marked interrupted by an
     * install that takes the lock.
     */
    @Test
    void aLiveInstallOfAnotherReplicaIsNotMarkedInterrupted() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        String tap = unique("tap-live");
        json().body(Map.of("name", tap, "executable", "tap-tiny", "pipUrl", wheel)).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        Path dir = PLUGINS.resolve("extractors").resolve(tap);
        long live = QuarkusTransaction.requiringNew().call(() -> {
            PluginInstall i = new PluginInstall();
            i.pluginId = plugins.findByTypeAndName(PluginType.EXTRACTORS, tap).orElseThrow().id;
            i.pluginType = "extractors";
            i.pluginName = tap;
            i.instanceId = "other-replica";
            i.environment = dir.resolve("venv").toString();
            i.trigger = PluginInstall.Trigger.RUN;
            i.status = PluginInstall.Status.RUNNING;
            i.pipUrl = wheel;
            i.python = "python3";
            i.fingerprint = PluginEnvironment.fingerprint("python3", wheel);
            i.startedAt = OffsetDateTime.now().minusHours(1);
            i.heartbeatAt = OffsetDateTime.now();
            installs.persist(i);
            return i.id;
        });
        int id = json().post("/api/v1/plugins/extractors/" + tap + ":install").then().statusCode(202)
                .extract().path("id");
        await().atMost(WAIT).until(() -> "SUCCEEDED".equals(json().get("/api/v1/plugins/extractors/" + tap
                + "/installs/" + id).then().extract().path("status")));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs/" + live).then()
                .body("status", equalTo("RUNNING"))
                .body("reason", nullValue());
        String log = json().get("/api/v1/plugins/extractors/" + tap + "/installs/" + id).then().extract().path("log");
        assertFalse(log.contains("interrupted"), log);
    }

    @Test
    void killingTheInstallerMidInstallLeavesThePluginNotInstalledAndTheNextRunInstallsItCleanly() throws Exception {
        String tap = unique("tap-slow");
        Path src = TestPackages.slowSource(tap + "-src");
        String p = pipeline(tap, src.toString(), "tap-slow");
        Path dir = PLUGINS.resolve("extractors").resolve(tap);

        String run = trigger(p, Map.of());
        await().atMost(WAIT).until(() -> Files.exists(src.resolve("started")));
        // An install record left RUNNING by a service that died earlier (an hour ago, never beating since), on
        // this environment.
        long stale = QuarkusTransaction.requiringNew().call(() -> {
            PluginInstall i = new PluginInstall();
            i.pluginId = plugins.findByTypeAndName(PluginType.EXTRACTORS, tap).orElseThrow().id;
            i.pluginType = "extractors";
            i.pluginName = tap;
            i.instanceId = "gone-replica";
            i.environment = dir.resolve("venv").toString();
            i.trigger = PluginInstall.Trigger.API;
            i.status = PluginInstall.Status.RUNNING;
            i.pipUrl = src.toString();
            i.python = "python3";
            i.fingerprint = "x";
            i.startedAt = OffsetDateTime.now().minusHours(1);
            installs.persist(i);
            return i.id;
        });
        // Kill pip with SIGKILL mid-install (then the build backend it had started).
        List<ProcessHandle> pip = ProcessHandle.current().descendants()
                .filter(h -> h.info().commandLine().orElse("").contains("-m pip install")
                        && h.info().commandLine().orElse("").endsWith(" " + src))
                .toList();
        assertEquals(1, pip.size(), "pip is running");
        List<ProcessHandle> backend = pip.get(0).descendants().toList();
        pip.get(0).destroyForcibly();
        backend.forEach(ProcessHandle::destroyForcibly);

        awaitEnd(run, WAIT).then()
                .body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("extractor"))
                .body("errorSummary", startsWith("installing extractors/" + tap + " failed: pip was killed by signal 9 before"
                        + " it finished: "));
        json().get("/api/v1/plugins/extractors/" + tap).then().body("install.installed", equalTo(false));
        assertFalse(Files.exists(dir.resolve("venv")), "nothing was swapped into place");

        Files.delete(src.resolve("hold"));
        String next = trigger(p, Map.of());
        awaitEnd(next, WAIT).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("streams.tiny.records", equalTo(3));
        assertTrue(log(next).contains("install:" + tap + " | marked 1 earlier install(s) of this environment as"
                + " interrupted"), log(next));
        json().get("/api/v1/plugins/extractors/" + tap).then()
                .body("install.installed", equalTo(true)).body("install.version", equalTo("2.0.0"));
        json().get("/api/v1/plugins/extractors/" + tap + "/installs/" + stale).then()
                .body("status", equalTo("FAILED"))
                .body("reason", containsString("interrupted"));
        try (var s = Files.list(dir)) {
            assertEquals(1, s.filter(x -> x.getFileName().toString().startsWith("env-")).count());
        }
    }
}
