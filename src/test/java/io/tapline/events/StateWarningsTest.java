package io.tapline.events;

import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StateWarningsTest {

    private static final StateWarnings RULES = new StateWarnings(3, 1000, 4, 100);

    private static RunFacts run(String status, long records, long beforeBytes, long afterBytes, Integer own) {
        return new RunFacts(UUID.randomUUID(), 1L, "p", "dev:a-to-b", "MANUAL", status, 1, OffsetDateTime.now(),
                OffsetDateTime.now(), OffsetDateTime.now(), null, null, records, "{}", beforeBytes, afterBytes,
                beforeBytes == afterBytes, "a", null, "b", null, own, false);
    }

    @Test
    void bookmarksNotPassedToTheExtractorWarnWithAnEventOnEveryRun() {
        RunFacts r = new RunFacts(UUID.randomUUID(), 1L, "p", "dev:a-to-b", "MANUAL", "SUCCEEDED", 1,
                OffsetDateTime.now(), OffsetDateTime.now(), OffsetDateTime.now(), null, null, 5, "{}", 40, 40, true,
                "tap-x", null, "b", null, null, true);
        List<StateWarning> w = RULES.of(r, List.of());
        assertEquals(1, w.size());
        assertEquals(EventType.STATE_NOT_PASSED, w.get(0).type());
        assertTrue(w.get(0).newEvent());
        assertTrue(w.get(0).message().contains("'dev:a-to-b'") && w.get(0).message().contains("'tap-x'")
                && w.get(0).message().contains("'state' capability"), w.get(0).message());
        assertEquals("tap-x", w.get(0).details().get("extractor"));
    }

    @Test
    void notAdvancingAfterExactlyNUnchangedRunsThenWarnedWithoutANewEvent() {
        RunFacts r = run("SUCCEEDED", 3, 40, 40, null);
        // newest first: this run, then older ones; the oldest set the first bookmark (changed)
        assertTrue(RULES.of(r, List.of(true, true, false)).isEmpty(), "2 of 3");
        assertTrue(RULES.of(r, List.of(true, true)).isEmpty(), "2 of 3, no older runs");
        List<StateWarning> w = RULES.of(r, List.of(true, true, true, false));
        assertEquals(1, w.size());
        assertEquals(EventType.STATE_NOT_ADVANCING, w.get(0).type());
        assertTrue(w.get(0).newEvent(), "the streak reached N: an event");
        assertTrue(w.get(0).message().contains("'dev:a-to-b'") && w.get(0).message().contains("last 3"));
        assertEquals(3, w.get(0).details().get("unchangedRuns"));
        assertTrue(RULES.of(r, List.of(true, true, true)).get(0).newEvent(), "exactly N runs exist");
        w = RULES.of(r, List.of(true, true, true, true));
        assertEquals(1, w.size());
        assertFalse(w.get(0).newEvent(), "still stuck: a warning, no second event");
        assertTrue(RULES.of(r, List.of(false, true, true, true)).isEmpty(), "this run advanced");
    }

    @Test
    void thePipelinesOwnThresholdAndOnlySuccessfulRunsWithRecordsCount() {
        assertEquals(EventType.STATE_NOT_ADVANCING, RULES.of(run("SUCCEEDED", 1, 40, 40, 1), List.of(true)).get(0).type());
        assertTrue(RULES.of(run("SUCCEEDED", 0, 40, 40, 1), List.of(true)).isEmpty(), "a run without records proves nothing");
        assertTrue(RULES.of(run("FAILED", 5, 40, 40, 1), List.of(true)).isEmpty(), "failed runs do not count");
        assertTrue(RULES.of(run("SUCCEEDED", 5, 40, 40, 1), List.of()).isEmpty(), "not among the productive runs");
    }

    @Test
    void stateLargeAboveTheThresholdOnceWhenCrossedAndOnFastGrowth() {
        List<StateWarning> w = RULES.of(run("FAILED", 0, 500, 1200, null), List.of());
        assertEquals(EventType.STATE_LARGE, w.get(0).type());
        assertTrue(w.get(0).newEvent(), "crossed the threshold");
        assertEquals(1200L, w.get(0).details().get("bytes"));
        assertTrue(w.get(0).message().contains("1200 bytes, above tapline.events.state-large-bytes (1000)"));
        assertFalse(RULES.of(run("SUCCEEDED", 0, 1100, 1200, null), List.of()).get(0).newEvent(), "still large");
        w = RULES.of(run("SUCCEEDED", 0, 60, 300, null), List.of());
        assertEquals(1, w.size());
        assertTrue(w.get(0).message().contains("grew from 60 to 300 bytes"), w.get(0).message());
        assertTrue(RULES.of(run("SUCCEEDED", 0, 2, 90, null), List.of()).isEmpty(), "tiny states may grow");
        assertTrue(RULES.of(run("SUCCEEDED", 0, 100, 400, null), List.of()).isEmpty(), "4 times is not more than 4");
    }
}
