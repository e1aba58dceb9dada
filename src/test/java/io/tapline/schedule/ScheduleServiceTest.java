package io.tapline.schedule;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.run.Run;
import io.tapline.run.RunStatus;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.UUID;

import static io.tapline.schedule.Fixtures.queryLong;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A schedule pauses itself after N consecutive failed runs (pauseAfterFailures). */
@QuarkusTest
class ScheduleServiceTest {

    @Inject
    ScheduleService service;

    @Inject
    PipelineChangedRecorder changes;

    Fixtures.Plugins plugins;

    @BeforeEach
    void plugins() {
        plugins = Fixtures.Plugins.create();
    }

    /** A run as the engine would hand it over (only the fields onRunFinished reads). */
    private static Run ended(UUID id, long pipelineId, String status) {
        Run r = new Run();
        r.id = id;
        r.pipelineId = pipelineId;
        r.status = RunStatus.valueOf(status);
        return r;
    }

    private Optional<String> finish(long pipelineId, String status, int attempt) {
        return service.onRunFinished(ended(Fixtures.run(pipelineId, status, attempt), pipelineId, status));
    }

    private boolean enabled(long id) {
        return queryLong("select case when schedule_enabled then 1 else 0 end from pipeline where id = ?", id) == 1;
    }

    @Test
    void pausesAfterNConsecutiveFailuresCountingOnlyExhaustedRetries() {
        String name = unique("flaky");
        long id = plugins.pipeline(name, "\"interval\":\"PT1H\",\"pauseAfterFailures\":3", "\"retry\":{\"maxAttempts\":2}");
        assertTrue(finish(id, "FAILED", 2).isEmpty());        // 1
        assertTrue(finish(id, "SUCCEEDED", 1).isEmpty());     // resets
        assertTrue(finish(id, "FAILED", 2).isEmpty());        // 1
        assertTrue(finish(id, "FAILED", 1).isEmpty());        // will be retried: not counted
        assertTrue(finish(id, "CANCELLED", 1).isEmpty());     // ignored
        assertTrue(finish(id, "SKIPPED", 1).isEmpty());       // ignored
        assertTrue(finish(id, "FAILED", 2).isEmpty());        // 2
        assertTrue(enabled(id));
        long before = changes.count(name);
        String reason = finish(id, "FAILED", 2).orElseThrow(); // 3
        assertTrue(reason.contains("3 consecutive failed runs"), reason);
        assertTrue(!enabled(id));
        assertEquals(before + 1, changes.count(name));
        json().get("/api/v1/pipelines/" + name + "/schedule").then().statusCode(200)
                .body("enabled", equalTo(false)).body("pausedReason", containsString("consecutive failed runs"));
        json().get("/api/v1/pipelines/" + name).then().statusCode(200)
                .body("schedule.enabled", equalTo(false)).body("nextRunAt", nullValue())
                .body("lastRun.status", equalTo("FAILED"));

        assertTrue(finish(id, "FAILED", 2).isEmpty(), "already paused");
        json().post("/api/v1/pipelines/" + name + "/resume").then().statusCode(200).body("schedule.enabled", equalTo(true));
        json().get("/api/v1/pipelines/" + name + "/schedule").then().statusCode(200).body("pausedReason", nullValue());
    }

    @Test
    void aFailureThatIsNotRetryableCountsAsExhaustedUnderARetryPolicy() {
        String name = unique("broken");
        long id = plugins.pipeline(name, "\"interval\":\"PT1H\",\"pauseAfterFailures\":1", "\"retry\":{\"maxAttempts\":3}");
        // attempt 1 of 3 with a retryable failure: a retry follows, so it does not count
        UUID retried = Fixtures.run(id, "FAILED", 1);
        Fixtures.update("update pipeline_run set failure_type = 'connector_exit', failure_retryable = true where id = ?", retried);
        assertTrue(service.onRunFinished(ended(retried, id, "FAILED")).isEmpty());
        assertTrue(enabled(id));
        // attempt 1 of 3 failing with a configuration error is never retried: exhausted, pause
        UUID broken = Fixtures.run(id, "FAILED", 1);
        Fixtures.update("update pipeline_run set failure_type = 'configuration', failure_retryable = false where id = ?", broken);
        String reason = service.onRunFinished(ended(broken, id, "FAILED")).orElseThrow();
        assertTrue(reason.contains("1 consecutive failed run ") && reason.contains(broken.toString()), reason);
        assertTrue(!enabled(id));
    }

    @Test
    void withoutThePolicyFailuresNeverPause() {
        long id = plugins.pipeline(unique("steady"), "\"interval\":\"PT1H\"");
        for (int i = 0; i < 5; i++) {
            assertTrue(finish(id, "FAILED", 1).isEmpty());
        }
        assertTrue(enabled(id));
        long once = plugins.pipeline(unique("strict"), "\"interval\":\"PT1H\",\"pauseAfterFailures\":1");
        assertTrue(finish(once, "SUCCEEDED", 1).isEmpty());
        assertTrue(finish(once, "FAILED", 1).orElseThrow().contains("1 consecutive failed run "));
    }
}
