package io.tapline.run;

import io.tapline.run.runner.RunnerCommand;
import io.tapline.support.Connectors;
import io.tapline.support.ItSupport;
import io.tapline.support.ServiceProcess;
import io.tapline.support.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.tapline.support.ItSupport.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runner mode of the packaged build ({@code run <run-id>}): a service that never claims runs
 * queues one; a runner started by hand on its id claims it, runs it with the engine, stores its
 * state and exits 0, without an HTTP server; a second runner on the same id exits
 * {@value RunnerCommand#NOT_CLAIMED} without running it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunnerModeIT {

    private static final Pattern CLAIMED = Pattern.compile("claimed run \\S+ (\\d+) ms after the JVM started");

    private TestPostgres.Database db;
    private ServiceProcess service;

    @BeforeAll
    void start() {
        db = TestPostgres.shared().createDatabase("it_runner");
        service = ServiceProcess.start("svc", db, Map.of("TAPLINE_RUNNER_MAX_CONCURRENT_RUNS", "0"));
        service.awaitReady(Duration.ofSeconds(180));
        ItSupport.use(service);
    }

    @AfterAll
    void stop() {
        ItSupport.reset();
        if (service != null) {
            service.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void aRunnerRunsTheQueuedRunOnceAndASecondRunnerLeavesIt() throws Exception {
        String pipeline = Connectors.pipeline(Map.of("records", 3, "state_every", 1), Map.of(), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        try (Connection c = db.connect()) {
            assertEquals("QUEUED", row(c, "select status from pipeline_run where id = ?", run).orElseThrow()
                    .get("status"));
            Path dir = service.dir().resolve("runners");
            long t0 = System.nanoTime();
            Process first = ServiceProcess.runner("runner-1", db, dir, Map.of(), List.of(run.toString()));
            assertTrue(first.waitFor(120, TimeUnit.SECONDS), "the runner exits");
            long wallMs = (System.nanoTime() - t0) / 1_000_000;
            String log = Files.readString(dir.resolve("runner-1.log"));
            assertEquals(RunnerCommand.OK, first.exitValue(), log);
            Map<String, Object> r = row(c, "select status, owner_instance, records_total, state_after from pipeline_run"
                    + " where id = ?", run).orElseThrow();
            assertEquals("SUCCEEDED", r.get("status"), log);
            assertEquals("runner-1", r.get("owner_instance"));
            assertEquals(3L, ((Number) r.get("records_total")).longValue());
            String state = Connectors.state(Connectors.stateId(pipeline));
            assertTrue(state.replace(" ", "").contains("\"items\":{\"id\":3}"), state);
            // No HTTP server in runner mode: Quarkus lists no address.
            assertTrue(log.contains("Listening on: \""), log);
            assertFalse(log.contains("Listening on: http"), log);
            // The run's log goes to stdout too (a pod's log), masked like the file.
            assertTrue(log.contains(" service | run " + run + " of pipeline '" + pipeline + "'"), log);
            Matcher m = CLAIMED.matcher(log);
            assertTrue(m.find(), log);
            System.out.printf("runner mode: run claimed %s ms after the JVM started; whole run %d ms%n", m.group(1),
                    wallMs);

            Process second = ServiceProcess.runner("runner-2", db, dir, Map.of(), List.of(run.toString()));
            assertTrue(second.waitFor(120, TimeUnit.SECONDS), "the second runner exits");
            String log2 = Files.readString(dir.resolve("runner-2.log"));
            assertEquals(RunnerCommand.NOT_CLAIMED, second.exitValue(), log2);
            assertTrue(log2.contains("was not claimed (SUCCEEDED, owner runner-1)"), log2);
            assertEquals("runner-1", row(c, "select owner_instance from pipeline_run where id = ?", run).orElseThrow()
                    .get("owner_instance"));

            Process bad = ServiceProcess.runner("runner-3", db, dir, Map.of(), List.of("not-a-run"));
            assertTrue(bad.waitFor(120, TimeUnit.SECONDS));
            assertEquals(RunnerCommand.USAGE, bad.exitValue());
        }
    }
}
