package io.tapline.run.exec;

import io.smallrye.config.ConfigValidationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When fenced runs are stopped and killed, and which settings start-up refuses. */
class FenceTimesTest {

    private static FenceTimes times(String timeout, String interval, String margin, String grace) {
        return new FenceTimes(Duration.parse("PT" + timeout), Duration.parse("PT" + interval),
                Duration.parse("PT" + margin), Duration.parse("PT" + grace));
    }

    @Test
    void theDefaultsFenceAfterFortySecondsAndKillTwoSecondsBeforeTheTimeout() {
        FenceTimes t = times("60S", "2S", "2S", "10S");
        assertEquals(Duration.ofSeconds(40), t.fenceAfter());
        assertEquals(Duration.ofSeconds(58), t.killAfter());
        assertEquals(List.of(), t.problems());
        assertTrue(t.graceWarning().isEmpty());
    }

    @Test
    void aFencedRunsGraceIsCutToTheKillPointWhateverTheTerminateGrace() {
        // the shipped manifests' old values: a 60 s grace under the 60 s timeout
        FenceTimes t = times("60S", "2S", "2S", "60S");
        Instant last = Instant.parse("2026-01-01T00:00:00Z");
        assertEquals(Duration.ofSeconds(18), t.fencedGrace(last, last.plusSeconds(40)));
        assertEquals(Duration.ofSeconds(1), t.fencedGrace(last, last.plusSeconds(57)));
        assertEquals(Duration.ZERO, t.fencedGrace(last, last.plusSeconds(59)));
        assertEquals(Duration.ofSeconds(10), times("60S", "2S", "2S", "10S").fencedGrace(last, last.plusSeconds(40)));
        assertEquals(last.plusSeconds(58), t.killAt(last));
        assertEquals(List.of(), t.problems(), "the kill keeps the promise; the grace is cut, with a warning");
        String warning = t.graceWarning().orElseThrow();
        assertTrue(warning.contains("tapline.runner.terminate-grace=60s") && warning.contains("18s later")
                && warning.contains("tapline.runner.heartbeat-timeout=60s"), warning);
    }

    @Test
    void aMarginThatPutsTheKillBeforeTheFencePointIsRefusedNamingBothSettings() {
        FenceTimes t = times("6S", "1S", "2S", "1S");
        String problem = t.problems().get(0);
        assertEquals(1, t.problems().size(), t.problems().toString());
        assertTrue(problem.contains("tapline.runner.fence-kill-margin=2s")
                && problem.contains("tapline.runner.heartbeat-timeout=6s"), problem);
        ConfigValidationException e = assertThrows(ConfigValidationException.class, t::check);
        assertTrue(e.getMessage().contains("tapline.runner.fence-kill-margin=2s"), e.getMessage());
        assertEquals(List.of(), times("7S", "1S", "2S", "1S").problems(), "fence at 4.6 s, kill at 5 s");
    }

    @Test
    void aHeartbeatIntervalAboveAThirdOfTheTimeoutIsRefused() {
        List<String> problems = times("9S", "4S", "2S", "1S").problems();
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("tapline.runner.heartbeat-interval=4s")
                && problems.get(0).contains("tapline.runner.heartbeat-timeout=9s"), problems.get(0));
        assertEquals(List.of(), times("9S", "3S", "2S", "1S").problems());
    }

    @Test
    void aNegativeMarginOrAZeroTimeoutIsRefused() {
        assertEquals(1, times("60S", "2S", "-1S", "10S").problems().size());
        assertEquals(1, times("0S", "0S", "0S", "10S").problems().size());
    }
}
