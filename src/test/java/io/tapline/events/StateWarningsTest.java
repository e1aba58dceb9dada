package io.tapline.events;

import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StateWarningsTest {

    private static final StateWarnings RULES = new StateWarnings(3, 1000, 4, 100);
    private static final String S = "{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":3}}}}";

    private static RunFacts run(String status, long records, String before, String after, Integer own) {
        return new RunFacts(UUID.randomUUID(), 1L, "p", "dev:a-to-b", "MANUAL", status, 1, OffsetDateTime.now(),
                OffsetDateTime.now(), OffsetDateTime.now(), null, null, records, "{}", before, after, "a", null, "b",
                null, own);
    }

    /** Newest first: the newest run last in {@code oldestFirst}. */
    private static List<StateWarning> after(List<RunFacts> oldestFirst) {
        List<RunFacts> recent = new ArrayList<>(oldestFirst);
        java.util.Collections.reverse(recent);
        return RULES.of(recent.get(0), recent.subList(0, Math.min(recent.size(), RULES.threshold(recent.get(0)) + 1)));
    }

    @Test
    void notAdvancingAfterExactlyNUnchangedRunsThenWarnedWithoutANewEvent() {
        List<RunFacts> runs = new ArrayList<>();
        runs.add(run("SUCCEEDED", 3, "{}", S, null));            // the first bookmark: advanced
        assertTrue(after(runs).isEmpty());
        runs.add(run("SUCCEEDED", 3, S, S, null));
        assertTrue(after(runs).isEmpty());
        runs.add(run("SUCCEEDED", 3, S, S, null));
        assertTrue(after(runs).isEmpty(), "2 of 3");
        runs.add(run("SUCCEEDED", 3, S, S, null));
        List<StateWarning> w = after(runs);
        assertEquals(1, w.size());
        assertEquals(EventType.STATE_NOT_ADVANCING, w.get(0).type());
        assertTrue(w.get(0).newEvent(), "the streak reached N: an event");
        assertTrue(w.get(0).message().contains("'dev:a-to-b'") && w.get(0).message().contains("last 3"));
        runs.add(run("SUCCEEDED", 3, S, S, null));
        w = after(runs);
        assertEquals(1, w.size());
        assertFalse(w.get(0).newEvent(), "still stuck: a warning, no second event");
    }

    @Test
    void aRunThatStoredNoCheckpointCountsAsUnchangedAndAnEmptyStateNever() {
        List<RunFacts> runs = new ArrayList<>(List.of(run("SUCCEEDED", 1, S, null, 1)));
        assertEquals(EventType.STATE_NOT_ADVANCING, after(runs).get(0).type(), "N = 1 from the pipeline");
        assertTrue(after(List.of(run("SUCCEEDED", 1, "{}", null, 1))).isEmpty(), "no state at all is no bookmark");
        assertTrue(after(List.of(run("SUCCEEDED", 0, S, S, 1))).isEmpty(), "a run without records proves nothing");
        assertTrue(after(List.of(run("FAILED", 5, S, S, 1))).isEmpty(), "failed runs do not count");
    }

    @Test
    void stateLargeAboveTheThresholdOnceWhenCrossedAndOnFastGrowth() {
        String big = "{\"k\":\"" + "x".repeat(1200) + "\"}";
        List<StateWarning> w = RULES.of(run("FAILED", 0, S, big, null), List.of());
        assertEquals(EventType.STATE_LARGE, w.get(0).type());
        assertTrue(w.get(0).newEvent());
        assertEquals((long) big.length(), w.get(0).details().get("bytes"));
        assertFalse(RULES.of(run("SUCCEEDED", 0, big, big, null), List.of()).get(0).newEvent(), "still large");
        String grown = "{\"k\":\"" + "x".repeat(300) + "\"}";
        String small = "{\"k\":\"" + "x".repeat(50) + "\"}";
        w = RULES.of(run("SUCCEEDED", 0, small, grown, null), List.of());
        assertEquals(1, w.size());
        assertTrue(w.get(0).message().contains("grew from " + small.length() + " to " + grown.length()), w.get(0).message());
        assertTrue(RULES.of(run("SUCCEEDED", 0, "{}", "{\"a\":12345}", null), List.of()).isEmpty(),
                "tiny states may grow");
    }
}
