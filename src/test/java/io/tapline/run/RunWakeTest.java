package io.tapline.run;

import io.quarkus.scheduler.Scheduler;
import io.quarkus.scheduler.Trigger;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trigger on this replica starts its run at once ({@link RunDispatcher} is woken after the
 * trigger's commit), not at the dispatcher's next poll: the poll is paused and an hour apart here,
 * so a run that depended on it would stay QUEUED past the wait.
 */
@QuarkusTest
@TestProfile(RunWakeTest.Profile.class)
class RunWakeTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** An application of its own (its dispatcher's poll is paused), polling once an hour. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public String getConfigProfile() {
            return "test";
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.runner.poll-interval", "1h");
        }
    }

    @Inject
    Scheduler scheduler;

    private String poll;

    @BeforeEach
    void pauseThePoll() {
        poll = scheduler.getScheduledJobs().stream()
                .filter(t -> t.getMethodDescription().endsWith(RunDispatcher.class.getName() + "#poll"))
                .map(Trigger::getId).findFirst().orElseThrow();
        scheduler.pause(poll);
        assertTrue(scheduler.isPaused(poll));
    }

    @AfterEach
    void resumeThePoll() {
        scheduler.resume(poll);
    }

    @Test
    void aTriggeredRunStartsWithoutTheDispatchersPoll() {
        String p = pipeline(Map.of("records", 1), Map.of(), Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("recordsTotal", equalTo(1));
        // The slot the first run held is free again: the next trigger starts at once too.
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"));
    }
}
