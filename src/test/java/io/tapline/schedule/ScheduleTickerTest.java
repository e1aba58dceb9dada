package io.tapline.schedule;

import io.tapline.pipeline.schedule.CatchUp;
import io.tapline.support.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.tapline.schedule.FakeScheduleStore.utc;
import static io.tapline.schedule.FakeScheduleStore.with;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ticker's rules with fixed clocks and an in-memory store: what fires when, and what never replays. */
class ScheduleTickerTest {

    private static final Duration GRACE = Duration.ofSeconds(60);

    private final FakeScheduleStore store = new FakeScheduleStore();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    private ScheduleTicker ticker(String name) {
        return new ScheduleTicker(store, clock, GRACE, name);
    }

    /** Loads a ticker at {@code from}, then ticks every {@code step} until {@code to} (inclusive). */
    private ScheduleTicker run(String from, String to, Duration step) {
        clock.set(utc(from));
        ScheduleTicker t = ticker("a");
        t.load(clock.instant());
        while (clock.instant().isBefore(utc(to))) {
            t.tick(clock.advance(step));
        }
        return t;
    }

    @Test
    void pipelinesSharingAnIntervalInOtherTimeZonesOrDisabledAreEachPlannedOnTheirOwn() {
        store.add(1, "0 6 * * *", "UTC");
        store.add(2, "0 6 * * *", "Europe/Berlin");
        store.add(3, "0 6 * * *", "UTC");
        store.add(4, "0 6 * * *", "America/New_York");
        store.put(FakeScheduleStore.with(store.load(3).orElseThrow(), false));
        clock.set(utc("2026-01-01T00:00:00Z"));
        ScheduleTicker t = ticker("a");
        assertEquals(4, t.load(clock.instant()));
        assertEquals(utc("2026-01-01T06:00:00Z"), t.nextFireTime(1).orElseThrow());
        assertEquals(utc("2026-01-01T05:00:00Z"), t.nextFireTime(2).orElseThrow());
        assertTrue(t.nextFireTime(3).isEmpty(), "paused");
        assertEquals(utc("2026-01-01T11:00:00Z"), t.nextFireTime(4).orElseThrow());
    }

    // ---- daylight saving, through the ticker

    @Test
    void berlinSpringForwardFiresTheMissingTimeOnceAtTheEndOfTheGap() {
        store.add(1, "30 2 * * *", "Europe/Berlin");
        store.add(2, "*/30 1-3 * * *", "Europe/Berlin");
        store.add(3, "0 * * * *", "Europe/Berlin");
        run("2026-03-28T22:30:00Z", "2026-03-29T03:00:00Z", Duration.ofSeconds(17));
        assertEquals(List.of("2026-03-29T01:00:00Z"), store.ticks(1));
        assertEquals(List.of("2026-03-29T00:00:00Z", "2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z",
                "2026-03-29T01:30:00Z"), store.ticks(2));
        assertEquals(List.of("2026-03-28T23:00:00Z", "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z",
                "2026-03-29T02:00:00Z", "2026-03-29T03:00:00Z"), store.ticks(3));
    }

    @Test
    void berlinFallBackFiresTheRepeatedHourOnce() {
        store.add(1, "30 2 * * *", "Europe/Berlin");
        store.add(2, "*/30 1-3 * * *", "Europe/Berlin");
        store.add(3, "0 * * * *", "Europe/Berlin");
        run("2026-10-24T22:30:00Z", "2026-10-25T03:00:00Z", Duration.ofSeconds(13));
        assertEquals(List.of("2026-10-25T00:30:00Z"), store.ticks(1));
        assertEquals(List.of("2026-10-24T23:00:00Z", "2026-10-24T23:30:00Z", "2026-10-25T00:00:00Z",
                "2026-10-25T00:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"), store.ticks(2));
        assertEquals(List.of("2026-10-24T23:00:00Z", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z",
                "2026-10-25T03:00:00Z"), store.ticks(3));
    }

    @Test
    void newYorkTransitions() {
        store.add(1, "30 2 * * *", "America/New_York");
        store.add(2, "*/30 1-3 * * *", "America/New_York");
        store.add(3, "0 * * * *", "America/New_York");
        run("2026-03-08T04:30:00Z", "2026-03-08T09:00:00Z", Duration.ofSeconds(29));
        assertEquals(List.of("2026-03-08T07:00:00Z"), store.ticks(1));
        assertEquals(List.of("2026-03-08T06:00:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z",
                "2026-03-08T07:30:00Z"), store.ticks(2));
        assertEquals(List.of("2026-03-08T05:00:00Z", "2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z",
                "2026-03-08T08:00:00Z", "2026-03-08T09:00:00Z"), store.ticks(3));

        FakeScheduleStore autumn = new FakeScheduleStore();
        autumn.add(2, "*/30 1-3 * * *", "America/New_York");
        autumn.add(3, "0 * * * *", "America/New_York");
        clock.set(utc("2026-11-01T04:30:00Z"));
        ScheduleTicker t = new ScheduleTicker(autumn, clock, GRACE, "b");
        t.load(clock.instant());
        while (clock.instant().isBefore(utc("2026-11-01T09:00:00Z"))) {
            t.tick(clock.advance(Duration.ofSeconds(31)));
        }
        assertEquals(List.of("2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:00:00Z",
                "2026-11-01T07:30:00Z", "2026-11-01T08:00:00Z", "2026-11-01T08:30:00Z"), autumn.ticks(2));
        assertEquals(List.of("2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z", "2026-11-01T08:00:00Z",
                "2026-11-01T09:00:00Z"), autumn.ticks(3));
    }

    // ---- one run per tick across tickers

    @Test
    void twoTickersRecordEachTickOnce() {
        store.add(1, "PT5S", "UTC");
        store.add(2, "* * * * *", "Europe/Berlin");
        clock.set(utc("2026-05-01T10:00:00.500Z"));
        ScheduleTicker a = ticker("a");
        ScheduleTicker b = ticker("b");
        a.load(clock.instant());
        b.load(clock.instant());
        for (int i = 0; i < 240; i++) {
            Instant now = clock.advance(Duration.ofMillis(500));
            if (i % 3 != 0) {
                a.tick(now);
            }
            if (i % 2 == 0) {
                b.tick(now);
            }
        }
        assertEquals(24, store.ticks(1).size());
        assertEquals(24, store.ticks(1).stream().distinct().count());
        assertEquals(2, store.ticks(2).size());
        assertTrue(a.stats().alreadyFired.get() + b.stats().alreadyFired.get() > 0, "both tickers saw due ticks");
    }

    @Test
    void aBusyStateIdRecordsSkippedTicks() {
        store.add(1, "PT10S", "UTC");
        store.busy.add(1L);
        ScheduleTicker t = run("2026-05-01T10:00:01Z", "2026-05-01T10:00:30Z", Duration.ofSeconds(1));
        assertEquals(List.of("2026-05-01T10:00:10Z", "2026-05-01T10:00:20Z", "2026-05-01T10:00:30Z"), store.ticks(1));
        assertEquals(3, t.stats().skipped.get());
    }

    // ---- never replay: edits, pause/resume, late ticks

    @Test
    void editingPlansFromNowAndNeverReplays() {
        store.add(1, "*/5 * * * *", "UTC");
        ScheduleTicker t = run("2026-05-01T10:00:30Z", "2026-05-01T10:07:00Z", Duration.ofSeconds(30));
        assertEquals(List.of("2026-05-01T10:05:00Z"), store.ticks(1));
        store.update(1, p -> with(p, "*/10 * * * *"));
        t.refresh(1, clock.instant());
        assertEquals(utc("2026-05-01T10:10:00Z"), t.nextFireTime(1).orElseThrow());
        while (clock.instant().isBefore(utc("2026-05-01T10:20:00Z"))) {
            t.tick(clock.advance(Duration.ofSeconds(30)));
        }
        assertEquals(List.of("2026-05-01T10:05:00Z", "2026-05-01T10:10:00Z", "2026-05-01T10:20:00Z"), store.ticks(1));
    }

    @Test
    void resumingDoesNotReplayPausedTicks() {
        store.add(1, "*/5 * * * *", "UTC");
        ScheduleTicker t = run("2026-05-01T10:00:30Z", "2026-05-01T10:06:00Z", Duration.ofSeconds(30));
        store.update(1, p -> with(p, false));
        t.refresh(1, clock.instant());
        assertTrue(t.nextFireTime(1).isEmpty());
        while (clock.instant().isBefore(utc("2026-05-01T10:31:00Z"))) {
            t.tick(clock.advance(Duration.ofSeconds(30)));
        }
        store.update(1, p -> with(p, true));
        t.refresh(1, clock.instant());
        assertEquals(utc("2026-05-01T10:35:00Z"), t.nextFireTime(1).orElseThrow());
        t.tick(clock.instant());
        assertEquals(List.of("2026-05-01T10:05:00Z"), store.ticks(1));
    }

    @Test
    void catchUpOneFiresTheLastMissedTickOnceOnResume() {
        store.put(with(store.add(1, "*/5 * * * *", "UTC"), CatchUp.ONE));
        ScheduleTicker t = run("2026-05-01T10:00:30Z", "2026-05-01T10:06:00Z", Duration.ofSeconds(30));
        store.update(1, p -> with(p, false));
        t.refresh(1, clock.instant());
        clock.set(utc("2026-05-01T10:31:00Z"));
        store.update(1, p -> with(p, true));
        t.refresh(1, clock.instant());
        // a second replica notices the same resume later, through its resync
        ScheduleTicker other = ticker("other");
        store.update(1, p -> with(p, false));
        other.load(clock.instant());
        store.update(1, p -> with(p, true));
        other.resync(clock.instant());
        // 10:00: catch-up when the first ticker started (never ran since its creation); 10:05: a tick;
        // 10:30: the one catch-up run for 10:10 to 10:30, missed while paused.
        assertEquals(List.of("2026-05-01T10:00:00Z", "2026-05-01T10:05:00Z", "2026-05-01T10:30:00Z"), store.ticks(1));
        assertEquals(utc("2026-05-01T10:35:00Z"), t.nextFireTime(1).orElseThrow());
    }

    @Test
    void catchUpOneAtStartFiresOnlyWhenATickWasMissed() {
        store.put(with(store.add(1, "*/5 * * * *", "UTC"), CatchUp.ONE));
        store.add(2, "*/5 * * * *", "UTC"); // policy NONE
        store.fire(store.rows.get(1L), utc("2026-05-01T09:00:00Z"));
        store.fire(store.rows.get(2L), utc("2026-05-01T09:00:00Z"));
        clock.set(utc("2026-05-01T10:07:00Z"));
        ticker("a").load(clock.instant());
        ticker("b").load(clock.instant()); // a second replica starting at the same time adds nothing
        assertEquals(List.of("2026-05-01T09:00:00Z", "2026-05-01T10:05:00Z"), store.ticks(1));
        assertEquals(List.of("2026-05-01T09:00:00Z"), store.ticks(2));
        clock.set(utc("2026-05-01T10:09:00Z"));
        ticker("c").load(clock.instant()); // nothing missed since 10:05
        assertEquals(2, store.ticks(1).size());
    }

    @Test
    void ticksNoticedLaterThanTheGraceAreDropped() {
        store.add(1, "*/5 * * * *", "UTC");
        clock.set(utc("2026-05-01T10:00:30Z"));
        ScheduleTicker t = ticker("a");
        t.load(clock.instant());
        t.tick(clock.advance(Duration.ofMinutes(11))); // 10:11:30: 10:05 and 10:10 are both > 60 s late
        assertEquals(List.of(), store.ticks(1));
        assertEquals(1, t.stats().missed.get());
        assertEquals(utc("2026-05-01T10:15:00Z"), t.nextFireTime(1).orElseThrow());
        clock.set(utc("2026-05-01T10:15:59Z"));
        t.tick(clock.instant()); // 59 s late: still fired
        assertEquals(List.of("2026-05-01T10:15:00Z"), store.ticks(1));
    }

    @Test
    void aChangeMadeOnAnotherReplicaIsNoticedWhenTheTickIsDue() {
        store.add(1, "*/5 * * * *", "UTC");
        store.add(2, "*/5 * * * *", "UTC");
        clock.set(utc("2026-05-01T10:01:00Z"));
        ScheduleTicker t = ticker("a");
        t.load(clock.instant());
        store.update(1, p -> with(p, "*/10 * * * *")); // 10:05 is no longer a tick
        store.update(2, p -> with(p, "* * * * *"));    // 10:05 still is
        t.tick(clock.advance(Duration.ofMinutes(4)));  // 10:05
        assertEquals(List.of(), store.ticks(1));
        assertEquals(List.of("2026-05-01T10:05:00Z"), store.ticks(2));
        assertEquals(utc("2026-05-01T10:10:00Z"), t.nextFireTime(1).orElseThrow());
        assertEquals(utc("2026-05-01T10:06:00Z"), t.nextFireTime(2).orElseThrow());
    }

    @Test
    void resyncPicksUpAddedChangedPausedAndDeletedPipelines() {
        store.add(1, "*/5 * * * *", "UTC");
        store.add(2, "*/5 * * * *", "UTC");
        clock.set(utc("2026-05-01T10:01:00Z"));
        ScheduleTicker t = ticker("a");
        t.load(clock.instant());
        store.add(3, "*/5 * * * *", "UTC");
        store.update(2, p -> with(p, false));
        store.rows.remove(1L);
        store.add(4, "@manual", "UTC");
        t.resync(clock.instant());
        assertEquals(2, t.size()); // 2 (paused) and 3
        assertTrue(t.nextFireTime(1).isEmpty() && t.nextFireTime(2).isEmpty());
        t.tick(clock.advance(Duration.ofMinutes(4)));
        assertEquals(List.of(), store.ticks(1));
        assertEquals(List.of(), store.ticks(2));
        assertEquals(List.of("2026-05-01T10:05:00Z"), store.ticks(3));
    }

    @Test
    void onceFiresOncePerPipelineWhateverTheReplicas() {
        store.add(1, "@once", "UTC");
        clock.set(utc("2026-05-01T10:00:00Z"));
        ScheduleTicker a = ticker("a");
        a.load(clock.instant());
        ticker("b").load(clock.instant());
        a.resync(clock.instant());
        a.tick(clock.advance(Duration.ofHours(1)));
        store.update(1, p -> with(p, "@once")); // an unrelated edit
        a.refresh(1, clock.instant());
        assertEquals(List.of("2026-01-01T00:00:00Z"), store.ticks(1)); // the pipeline's creation time
    }

    @Test
    void wakesUpOnItsOwnAtTheNextFireTime() {
        store.add(1, "PT1S", "UTC");
        ScheduleTicker t = new ScheduleTicker(store, Clock.systemUTC(), GRACE, "wake");
        try {
            t.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> store.ticks(1).size() >= 3);
        } finally {
            t.close();
        }
        List<String> ticks = store.ticks(1);
        for (int i = 1; i < ticks.size(); i++) {
            assertEquals(Duration.ofSeconds(1), Duration.between(Instant.parse(ticks.get(i - 1)), Instant.parse(ticks.get(i))));
        }
    }
}
