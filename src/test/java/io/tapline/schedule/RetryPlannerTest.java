package io.tapline.schedule;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.run.Run;
import io.tapline.run.RunRepository;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import static io.tapline.schedule.Fixtures.queryLong;
import static io.tapline.schedule.Fixtures.queryString;
import static io.tapline.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Retries are queued for failed runs only, with exponential backoff, up to the pipeline's attempt limit. */
@QuarkusTest
class RetryPlannerTest {

    @Inject
    RetryPlanner planner;

    @Inject
    RunRepository runs;

    Fixtures.Plugins plugins;

    @BeforeEach
    void plugins() {
        plugins = Fixtures.Plugins.create();
    }

    private Run load(UUID id) {
        return QuarkusTransaction.requiringNew().call(() -> runs.findById(id));
    }

    private Optional<UUID> finished(UUID id) {
        return planner.onRunFinished(load(id));
    }

    @Test
    void failedRunsAreRetriedWithBackoffUntilTheLastAttempt() {
        long id = plugins.pipeline(unique("retry"), "\"interval\":\"@manual\"",
                "\"retry\":{\"maxAttempts\":3,\"backoffSeconds\":10,\"maxBackoffSeconds\":15}");
        UUID first = Fixtures.run(id, "FAILED", 1);

        Instant before = Instant.now();
        UUID second = finished(first).orElseThrow();
        Run retry = load(second);
        assertEquals(2, retry.attempt);
        assertEquals(first, retry.retryOf);
        assertEquals("RETRY", retry.trigger.name());
        assertEquals("QUEUED", retry.status.name());
        Duration wait = Duration.between(before, retry.notBefore.toInstant());
        assertTrue(wait.compareTo(Duration.ofSeconds(9)) > 0 && wait.compareTo(Duration.ofSeconds(12)) < 0, wait.toString());
        assertTrue(finished(first).isEmpty(), "a second call for the same run queues nothing");

        Fixtures.update("update pipeline_run set status = 'FAILED', ended_at = now() where id = ?", second);
        before = Instant.now();
        UUID third = finished(second).orElseThrow();
        wait = Duration.between(before, load(third).notBefore.toInstant());
        assertTrue(wait.compareTo(Duration.ofSeconds(14)) > 0 && wait.compareTo(Duration.ofSeconds(17)) < 0,
                "20 s capped at 15 s: " + wait);
        assertEquals(3, load(third).attempt);

        Fixtures.update("update pipeline_run set status = 'FAILED', ended_at = now() where id = ?", third);
        assertTrue(finished(third).isEmpty(), "attempt 3 of 3 is the last");
        assertEquals(3, queryLong("select count(*) from pipeline_run where pipeline_id = ?", id));
    }

    @Test
    void cancelledSkippedSucceededAndCancelRequestedRunsAreNotRetried() {
        long id = plugins.pipeline(unique("noretry"), "\"interval\":\"@manual\"", "\"retry\":{\"maxAttempts\":5}");
        for (String status : new String[] {"CANCELLED", "SKIPPED", "SUCCEEDED"}) {
            assertTrue(finished(Fixtures.run(id, status, 1)).isEmpty(), status);
        }
        UUID failedWhileCancelling = Fixtures.run(id, "FAILED", 1);
        Fixtures.update("update pipeline_run set cancel_requested_at = now() where id = ?", failedWhileCancelling);
        assertTrue(finished(failedWhileCancelling).isEmpty());
        assertEquals(0, queryLong("select count(*) from pipeline_run where pipeline_id = ? and trigger = 'RETRY'", id));

        long single = plugins.pipeline(unique("once"), "\"interval\":\"@manual\"");
        assertTrue(finished(Fixtures.run(single, "FAILED", 1)).isEmpty(), "default policy: 1 attempt");
    }

    @Test
    void noRetryWhileAnotherRunHoldsTheStateId() {
        long id = plugins.pipeline(unique("busy"), "\"interval\":\"@manual\"", "\"retry\":{\"maxAttempts\":2}");
        UUID failed = Fixtures.run(id, "FAILED", 1);
        UUID running = Fixtures.run(id, "RUNNING", 1);
        assertTrue(finished(failed).isEmpty());
        assertEquals("RUNNING", queryString("select status from pipeline_run where id = ?", running).orElseThrow());
    }
}
