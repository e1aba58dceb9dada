package io.tapline.plugin.install;

import io.tapline.support.Connectors;
import io.tapline.support.ItSupport;
import io.tapline.support.ServiceProcess;
import io.tapline.support.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.ItSupport.row;
import static io.tapline.support.ItSupport.rows;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 items 11 and 4 with two packaged replicas on one database and one plugins directory
 * (a shared volume). Both replicas' runs need the same plugin, installed by neither: while a third
 * process holds the environment's file lock, each replica begins its install and waits; once the
 * lock is free, exactly one pip install runs, the other replica uses the environment it built, no
 * install is marked interrupted, and both runs succeed. The build backend of that one install saw
 * neither the database password nor the encryption key the replicas run with, nor any other
 * Quarkus or Tapline setting.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginInstallReplicasIT {

    private static final Duration STARTUP = Duration.ofSeconds(180);
    private static final Duration RUN = Duration.ofSeconds(240);
    /** 32 bytes, base64: the replicas' TAPLINE_SECRETS_ENCRYPTION_KEY. */
    private static final String KEY = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

    private TestPostgres.Database db;
    private Path plugins;
    private ServiceProcess a;
    private ServiceProcess b;

    @BeforeAll
    void start() throws Exception {
        db = TestPostgres.shared().createDatabase("it_installs");
        plugins = Files.createDirectories(Path.of("target/it-plugins-" + ProcessHandle.current().pid())
                .toAbsolutePath());
        // One run at a time per replica, so that the second run goes to the other replica.
        Map<String, String> settings = Map.of(
                "TAPLINE_PLUGINS_DIR", plugins.toString(),
                "TAPLINE_PLUGINS_PIP_ARGS", "--isolated,--no-index",
                "TAPLINE_RUNNER_MAX_CONCURRENT_RUNS", "1",
                "TAPLINE_RUNNER_HEARTBEAT_INTERVAL", "1s",
                "TAPLINE_SECRETS_ENCRYPTION_KEY", KEY);
        a = ServiceProcess.start("installs-a", db, settings);
        b = ServiceProcess.start("installs-b", db, settings);
        a.awaitReady(STARTUP);
        b.awaitReady(STARTUP);
        ItSupport.use(a);
    }

    @AfterAll
    void stop() {
        Stream.of(a, b).filter(java.util.Objects::nonNull).forEach(ServiceProcess::close);
        ItSupport.reset();
        if (db != null) {
            db.close();
        }
    }

    @Test
    void twoReplicasInstallingOnePluginRunPipOnceAndBothUseIt() throws Exception {
        String tap = unique("tap-envdump");
        Path dumps = TestPackages.ROOT.resolve(tap + "-dumps");
        Path src = TestPackages.envSource(tap + "-src", dumps, false);
        String first = InstallTests.pipeline(tap, src.toString(), "tap-envdump", Map.of());
        String target = unique("target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString(), "config", Map.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String second = unique("pl");
        json().body(Map.of("name", second, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        Path dir = Files.createDirectories(plugins.resolve("extractors").resolve(tap));

        String r1;
        String r2;
        try (Connection c = db.connect();
             FileChannel ch = FileChannel.open(dir.resolve(".install.lock"), StandardOpenOption.CREATE,
                     StandardOpenOption.WRITE);
             FileLock held = ch.lock()) {
            r1 = Connectors.trigger(first, Map.of());
            await("the first run's install waits for the lock").atMost(RUN)
                    .until(() -> running(c, tap).size() == 1);
            r2 = Connectors.trigger(second, Map.of());
            await("the second run's install waits for the lock").atMost(RUN)
                    .until(() -> running(c, tap).size() == 2);
            assertEquals(Set.of("installs-a", "installs-b"), Set.copyOf(running(c, tap)),
                    "one install on each replica");
            assertEquals(Set.of("installs-a", "installs-b"), Set.of(owner(c, r1), owner(c, r2)));
            // Both owners keep beating while they wait for the lock.
            await("both waiting installs beat").atMost(RUN).until(() -> rows(c, "select 1 from plugin_install"
                    + " where plugin_name = ? and status = 'RUNNING' and heartbeat_at > started_at", tap).size() == 2);
        }

        for (String run : List.of(r1, r2)) {
            assertEquals("SUCCEEDED", Connectors.awaitEnd(run, RUN).then().extract().path("status"),
                    a.logTail() + "\n" + b.logTail());
            assertEquals(3, (Integer) Connectors.awaitEnd(run, RUN).then().extract().path("streams.tiny.records"));
        }
        assertEquals(1, Files.readAllLines(dumps.resolve("builds")).size(), "exactly one build");
        try (Connection c = db.connect()) {
            List<Map<String, Object>> installs = rows(c, "select instance_id, status, reason, log from plugin_install"
                    + " where plugin_name = ? order by id", tap);
            assertEquals(2, installs.size());
            for (Map<String, Object> i : installs) {
                assertEquals("SUCCEEDED", i.get("status"), i.toString());
                assertNull(i.get("reason"), i.toString());
                assertFalse(((String) i.get("log")).contains("interrupted"), i.toString());
            }
            assertEquals(1, installs.stream().filter(i -> ((String) i.get("log")).contains(" -m pip install ")).count(),
                    "exactly one pip install: " + installs);
            assertEquals(1, installs.stream().filter(i -> ((String) i.get("log")).contains("another process installed"
                    + " tap-envdump 1.0.0 into " + dir.resolve("venv") + " while this install waited")).count(),
                    installs.toString());
        }
        for (ServiceProcess s : List.of(a, b)) {
            ItSupport.use(s);
            json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                    .body("install.installed", org.hamcrest.Matchers.equalTo(true));
        }
        ItSupport.use(a);

        List<InstallTests.Dump> all = InstallTests.dumps(dumps);
        assertEquals(1, all.size());
        InstallTests.Dump d = all.get(0);
        Set<String> settings = d.env().keySet().stream()
                .filter(n -> n.startsWith("QUARKUS_") || n.startsWith("TAPLINE_") || n.startsWith("MP_"))
                .collect(Collectors.toSet());
        assertEquals(Set.of(), settings, "service settings reached the build backend");
        assertFalse(d.env().containsValue(db.password()), "the database password reached the build backend");
        assertFalse(d.text().contains(KEY), "the encryption key reached the build backend");
    }

    /** The instances of the RUNNING installs of a plugin. */
    private static List<String> running(Connection c, String plugin) throws Exception {
        return rows(c, "select instance_id from plugin_install where plugin_name = ? and status = 'RUNNING'", plugin)
                .stream().map(r -> (String) r.get("instance_id")).toList();
    }

    private static String owner(Connection c, String run) throws Exception {
        return (String) row(c, "select owner_instance from pipeline_run where id = ?", UUID.fromString(run))
                .orElseThrow().get("owner_instance");
    }
}
