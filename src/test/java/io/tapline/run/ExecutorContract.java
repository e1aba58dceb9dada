package io.tapline.run;

import io.tapline.run.exec.RunExecutor;
import jakarta.inject.Inject;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.tapline.support.Api.json;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.awaitLog;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract every executor ({@code executor: singer}, {@code executor: meltano}, ...) keeps:
 * success, a non-zero exit, a timeout of a process that ignores SIGTERM, a cancel and a service
 * shutdown, each with its status, failure type and no process left. A subclass per executor says
 * how to make a pipeline behave so; each runs in its own application (its own test profile), since
 * the shutdown case, last, stops the executor.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ExecutorContract {

    static final Duration WAIT = Duration.ofSeconds(60);

    /** What the pipeline's processes do. */
    enum Behaviour {
        /** Succeed. */
        SUCCEED,
        /** Exit with a non-zero code. */
        FAIL,
        /** Log READY and hang (pids to the pid file). */
        HANG,
        /** Log READY and hang ignoring SIGTERM, with {@code timeoutSeconds: 2}. */
        HANG_IGNORING_SIGTERM
    }

    @Inject
    RunExecutor executor;

    /** A new pipeline of this executor that behaves so; its processes write their pids to {@code pids}. */
    abstract String pipeline(Behaviour behaviour, Path pids) throws Exception;

    /** The exit-code key of the process that fails ({@code extractor}, {@code meltano}). */
    abstract String failingComponent();

    @Test
    @Order(1)
    void success() throws Exception {
        String run = trigger(pipeline(Behaviour.SUCCEED, pids()), Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).body("failure", nullValue())
                .body("exitCodes." + failingComponent(), equalTo(0));
    }

    @Test
    @Order(2)
    void nonZeroExit() throws Exception {
        String run = trigger(pipeline(Behaviour.FAIL, pids()), Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("connector_exit")).body("failure.retryable", equalTo(true))
                .body("exitCodes." + failingComponent(), not(equalTo(0)))
                .body("failure.message", containsString("exit code"));
    }

    @Test
    @Order(3)
    void timeoutKillsAProcessThatIgnoresSigterm() throws Exception {
        Path pids = pids();
        String run = trigger(pipeline(Behaviour.HANG_IGNORING_SIGTERM, pids), Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("failure.type", equalTo("timeout")).body("failure.component", equalTo("service"))
                .body("errorSummary", equalTo("timed out after 2 s"));
        assertTrue(log(run).contains("SIGKILL"), log(run));
        assertNoProcessLeft(pids);
    }

    @Test
    @Order(4)
    void cancel() throws Exception {
        Path pids = pids();
        String run = trigger(pipeline(Behaviour.HANG, pids), Map.of());
        awaitLog(run, "READY", WAIT);
        json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        awaitEnd(run, WAIT).then().body("status", equalTo("CANCELLED"))
                .body("failure.type", equalTo("cancelled")).body("failure.retryable", equalTo(false))
                .body("errorSummary", containsString("cancelled by"));
        assertNoProcessLeft(pids);
    }

    @Test
    @Order(99)
    void shutdown() throws Exception {
        Path pids = pids();
        String run = trigger(pipeline(Behaviour.HANG, pids), Map.of());
        awaitLog(run, "READY", WAIT);
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(executor::shutdown);
        awaitEnd(run, WAIT).then().body("status", equalTo("CANCELLED"))
                .body("failure.type", equalTo("cancelled"))
                .body("errorSummary", equalTo(RunExecutor.SHUTDOWN_REASON));
        stopping.get();
        assertNoProcessLeft(pids);
        assertFalse(log(run).contains("Arc.container()"), log(run));
    }

    static Path pids() throws Exception {
        return Files.createTempFile("contract-pids", ".txt");
    }

    static String log(String run) {
        return json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
    }

    static void assertNoProcessLeft(Path pids) throws Exception {
        List<String> lines = Files.readAllLines(pids);
        assertFalse(lines.isEmpty(), "the processes wrote their pids");
        for (String l : lines) {
            long pid = Long.parseLong(l.trim());
            await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        }
    }
}
