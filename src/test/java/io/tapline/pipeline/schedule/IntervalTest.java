package io.tapline.pipeline.schedule;

import io.tapline.common.error.InvalidInputException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Interval parsing (Meltano's forms) and fire times, including daylight-saving transitions. */
class IntervalTest {

    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    /** Fire times in [from, to), as UTC strings. */
    private static List<String> fires(String interval, ZoneId zone, String from, String to) {
        Interval i = Interval.parse(interval);
        List<String> out = new ArrayList<>();
        Instant t = Instant.parse(from).minusNanos(1);
        Instant end = Instant.parse(to);
        while (true) {
            Optional<Instant> next = i.nextAfter(t, zone);
            if (next.isEmpty() || !next.get().isBefore(end)) {
                return out;
            }
            t = next.get();
            out.add(t.toString());
        }
    }

    // ---- daylight saving: spring forward (a local time that does not exist fires once, at the end of the gap)

    @Test
    void berlinSpringForwardMissingTimeFiresOnceAtTheEndOfTheGap() {
        // 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z). 02:30 does not exist that day.
        assertEquals(List.of("2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"),
                fires("30 2 * * *", BERLIN, "2026-03-28T00:00:00Z", "2026-03-31T00:00:00Z"));
    }

    @Test
    void berlinSpringForwardHourlyHasNoDuplicate() {
        assertEquals(List.of("2026-03-28T23:00:00Z", "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z",
                        "2026-03-29T02:00:00Z"),
                fires("0 * * * *", BERLIN, "2026-03-28T23:00:00Z", "2026-03-29T03:00:00Z"));
    }

    @Test
    void berlinSpringForwardStepsInsideTheGapCollapseIntoOneFire() {
        // 01:00, 01:30 CET; 02:00 and 02:30 do not exist -> once at 03:00 CEST, which also matches; then 03:30.
        assertEquals(List.of("2026-03-29T00:00:00Z", "2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z",
                        "2026-03-29T01:30:00Z"),
                fires("*/30 1-3 * * *", BERLIN, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z"));
    }

    @Test
    void newYorkSpringForward() {
        // 2026-03-08 02:00 EST -> 03:00 EDT (07:00Z)
        assertEquals(List.of("2026-03-07T07:30:00Z", "2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"),
                fires("30 2 * * *", NEW_YORK, "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z"));
        assertEquals(List.of("2026-03-08T06:00:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z",
                        "2026-03-08T07:30:00Z"),
                fires("*/30 1-3 * * *", NEW_YORK, "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"));
        assertEquals(List.of("2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"),
                fires("0 * * * *", NEW_YORK, "2026-03-08T06:00:00Z", "2026-03-08T09:00:00Z"));
    }

    // ---- daylight saving: fall back (a repeated local time fires once, at its first occurrence)

    @Test
    void berlinFallBackRepeatedHourFiresOnce() {
        // 2026-10-25 03:00 CEST -> 02:00 CET (01:00Z): 02:00-02:59 happens twice.
        assertEquals(List.of("2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"),
                fires("30 2 * * *", BERLIN, "2026-10-24T00:00:00Z", "2026-10-27T00:00:00Z"));
        assertEquals(List.of("2026-10-24T23:00:00Z", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z",
                        "2026-10-25T03:00:00Z"),
                fires("0 * * * *", BERLIN, "2026-10-24T23:00:00Z", "2026-10-25T04:00:00Z"));
        assertEquals(List.of("2026-10-24T23:00:00Z", "2026-10-24T23:30:00Z", "2026-10-25T00:00:00Z",
                        "2026-10-25T00:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"),
                fires("*/30 1-3 * * *", BERLIN, "2026-10-24T22:00:00Z", "2026-10-25T22:00:00Z"));
    }

    @Test
    void newYorkFallBackRepeatedHourFiresOnce() {
        // 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z): 01:00-01:59 happens twice.
        assertEquals(List.of("2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"),
                fires("30 1 * * *", NEW_YORK, "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z"));
        assertEquals(List.of("2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:00:00Z",
                        "2026-11-01T07:30:00Z", "2026-11-01T08:00:00Z", "2026-11-01T08:30:00Z"),
                fires("*/30 1-3 * * *", NEW_YORK, "2026-11-01T04:00:00Z", "2026-11-01T12:00:00Z"));
        assertEquals(List.of("2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z", "2026-11-01T08:00:00Z"),
                fires("0 * * * *", NEW_YORK, "2026-11-01T05:00:00Z", "2026-11-01T09:00:00Z"));
    }

    @Test
    void askingFromInsideTheSecondPassDoesNotReplayTheRepeatedHour() {
        Interval hourly = Interval.parse("0 * * * *");
        Interval half = Interval.parse("*/30 * * * *");
        // 02:10 CET (second pass) = 01:10Z; 02:00 and 02:30 already fired in the first pass.
        Instant secondPass = Instant.parse("2026-10-25T01:10:00Z");
        assertEquals(Instant.parse("2026-10-25T02:00:00Z"), hourly.nextAfter(secondPass, BERLIN).orElseThrow());
        assertEquals(Instant.parse("2026-10-25T02:00:00Z"), half.nextAfter(secondPass, BERLIN).orElseThrow());
        assertEquals(Instant.parse("2026-10-25T00:00:00Z"), hourly.lastAtOrBefore(secondPass, BERLIN).orElseThrow());
        assertEquals(Instant.parse("2026-10-25T00:30:00Z"), half.lastAtOrBefore(secondPass, BERLIN).orElseThrow());
    }

    @Test
    void lastAtOrBeforeMatchesNextAfter() {
        Interval i = Interval.parse("30 2 * * *");
        assertEquals(Instant.parse("2026-03-29T01:00:00Z"),
                i.lastAtOrBefore(Instant.parse("2026-03-29T01:00:00Z"), BERLIN).orElseThrow());
        assertEquals(Instant.parse("2026-03-28T01:30:00Z"),
                i.lastAtOrBefore(Instant.parse("2026-03-29T00:59:59Z"), BERLIN).orElseThrow());
        assertEquals(Instant.parse("2026-03-29T01:00:00Z"),
                i.lastAtOrBefore(Instant.parse("2026-03-30T00:29:59Z"), BERLIN).orElseThrow());
        Interval p = Interval.parse("PT5S");
        assertEquals(Instant.parse("2026-01-01T00:00:05Z"), p.lastAtOrBefore(Instant.parse("2026-01-01T00:00:09.9Z"), UTC).orElseThrow());
        assertEquals(Instant.parse("2026-01-01T00:00:10Z"), p.nextAfter(Instant.parse("2026-01-01T00:00:05Z"), UTC).orElseThrow());
    }

    /** Over a whole year in both zones, fire times ascend and each matching local date-time fires at most once. */
    @ParameterizedTest
    @ValueSource(strings = {"0 * * * *", "*/30 1-3 * * *", "30 2 * * *", "15 0-4 * * sun"})
    void aYearOfFireTimesHasNoDuplicateLocalTimes(String cron) {
        for (ZoneId zone : List.of(BERLIN, NEW_YORK)) {
            Interval i = Interval.parse(cron);
            Instant t = Instant.parse("2026-01-01T00:00:00Z");
            Set<LocalDateTime> seen = new HashSet<>();
            Instant previous = null;
            for (int n = 0; n < 3000; n++) {
                Instant next = i.nextAfter(t, zone).orElseThrow();
                assertTrue(next.isAfter(t));
                LocalDateTime local = LocalDateTime.ofInstant(next, zone);
                assertTrue(seen.add(local), cron + " fired twice at local " + local + " in " + zone);
                assertEquals(next, i.lastAtOrBefore(next, zone).orElseThrow());
                if (previous != null) {
                    assertEquals(previous, i.lastAtOrBefore(next.minusMillis(1), zone).orElseThrow());
                }
                previous = next;
                t = next;
            }
        }
    }

    @Property(tries = 300)
    void nextAfterIsStrictlyLaterAndLastAtOrBeforeIsTheInverse(
            @ForAll @LongRange(min = 1_767_225_600L, max = 1_830_297_600L) long epochSecond) {
        Instant at = Instant.ofEpochSecond(epochSecond);
        for (String cron : List.of("0 * * * *", "*/30 1-3 * * *", "30 2 * * *", "0 0 L * ?")) {
            for (ZoneId zone : List.of(BERLIN, NEW_YORK, UTC)) {
                Interval i = Interval.parse(cron);
                Instant next = i.nextAfter(at, zone).orElseThrow();
                Instant last = i.lastAtOrBefore(at, zone).orElseThrow();
                assertTrue(next.isAfter(at) && !last.isAfter(at));
                assertEquals(next, i.nextAfter(last, zone).orElseThrow(), cron + " " + zone + " at " + at);
            }
        }
    }

    // ---- parsing

    @Test
    void meltanoCronFormsAreAccepted() {
        ZonedDateTime from = ZonedDateTime.parse("2026-02-01T00:00:00Z");
        assertEquals(List.of("2026-02-28", "2026-03-31", "2026-04-30"), days("0 0 L * *", from, 3));
        assertEquals(List.of("2026-02-28", "2027-02-28", "2028-02-29"), days("0 0 L 2 ?", from, 3));
        assertEquals(List.of("2026-02-02", "2026-02-03", "2026-02-04"), days("0 0 ? * *", from, 3));
        // 2026-02-01 is a Sunday
        assertEquals(List.of("2026-02-01", "2026-02-08"), days("0 3 * * 7", from, 2));
        assertEquals(List.of("2026-02-01", "2026-02-08"), days("0 3 * * SUN", from, 2));
        assertEquals(List.of("2026-07-01", "2027-01-01"), days("0 0 1 jan,JUL *", from, 2));
        // fri-mon wraps around the week: Fri, Sat, Sun, Mon
        List<String> wrap = days("0 0 * * fri-mon", from, 8);
        assertEquals(List.of("2026-02-02", "2026-02-06", "2026-02-07", "2026-02-08", "2026-02-09", "2026-02-13",
                "2026-02-14", "2026-02-15"), wrap);
        assertEquals(days("0 0 * * 5,0", from, 6), days("0 0 * * 5-1/2", from, 6));
        assertEquals(days("0 0 * * 6,0", from, 6), days("0 0 * * sat-sun", from, 6));
        // day and weekday both restricted: either matches (Vixie cron, croniter)
        List<String> orDays = days("0 0 13 * 5", from, 4);
        assertEquals(List.of("2026-02-06", "2026-02-13", "2026-02-20", "2026-02-27"), orDays);
        for (String d : days("*/20 9-17 * * mon-fri", from, 30)) {
            DayOfWeek w = LocalDate.parse(d).getDayOfWeek();
            assertTrue(w != DayOfWeek.SATURDAY && w != DayOfWeek.SUNDAY, d);
        }
        assertEquals(Interval.Kind.CRON, Interval.parse("@hourly").kind());
        assertEquals(Interval.Kind.MANUAL, Interval.parse("@none").kind());
        assertEquals(Interval.Kind.ONCE, Interval.parse("@once").kind());
        assertEquals(Interval.Kind.PERIOD, Interval.parse("PT5S").kind());
    }

    private static List<String> days(String cron, ZonedDateTime from, int n) {
        return Interval.parse(cron).nextTimes(from.toInstant(), UTC, n).stream()
                .map(t -> LocalDate.ofInstant(t, UTC).toString()).toList();
    }

    @Test
    void invalidIntervalsNameTheProblem() {
        record Case(String interval, String message) { }
        for (Case c : List.of(
                new Case("61 * * * *", "61"),
                new Case("* 24 * * *", "24"),
                new Case("* * 0 * *", "0"),
                new Case("* * * 13 *", "13"),
                new Case("* * * * 8", "8"),
                new Case("* * * *", "5 cron fields"),
                new Case("0 0 * * * *", "5 cron fields"),
                new Case("@fortnightly", "unknown alias"),
                new Case("@Daily", "unknown alias"),
                new Case("? * * * *", "not a valid cron"),
                new Case("0 0 * * 5L", "not a valid cron"),
                new Case("0 0 * * mon#2", "not a valid cron"),
                new Case("PT0.5S", "between PT1S"),
                new Case("P1Y", "ISO-8601"),
                new Case(" ", "required"))) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> Interval.parse(c.interval()), c.interval());
            assertEquals("schedule.interval", e.errors().get(0).field());
            assertTrue(e.errors().get(0).message().contains(c.message()), c.interval() + ": " + e.errors().get(0).message());
        }
        InvalidInputException zone = assertThrows(InvalidInputException.class, () -> Interval.zone("Mars/Olympus"));
        assertEquals("schedule.timezone", zone.errors().get(0).field());
        assertTrue(zone.getMessage().contains("Mars/Olympus"));
        assertEquals(UTC, Interval.zone(null));
        assertEquals(BERLIN, Interval.zone(" Europe/Berlin "));
    }

    @Test
    void manualAndOnceHaveNoFireTimes() {
        for (String s : List.of("@manual", "@none", "@once")) {
            assertTrue(Interval.parse(s).nextAfter(Instant.EPOCH, UTC).isEmpty());
            assertTrue(Interval.parse(s).lastAtOrBefore(Instant.EPOCH, UTC).isEmpty());
            assertTrue(Interval.parse(s).nextTimes(Instant.EPOCH, UTC, 5).isEmpty());
        }
    }
}
