package io.tapline.pipeline.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import io.tapline.common.error.InvalidInputException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pipeline schedule interval in Meltano's forms (meltano-state.md §5, Meltano's
 * {@code CRON_INTERVALS} and {@code is_valid_cron} in {@code src/meltano/core/schedule.py}):
 * <ul>
 *   <li>the aliases {@code @hourly @daily @weekly @monthly @yearly @annually @midnight}
 *   (case-sensitive, as in Meltano);</li>
 *   <li>{@code @once}: a single run, the first time a scheduler sees the pipeline;</li>
 *   <li>{@code @manual} and {@code @none}: never automatic;</li>
 *   <li>any 5-field cron ({@code minute hour day-of-month month day-of-week}) with lists, ranges,
 *   steps, month names {@code jan}–{@code dec}, weekday names {@code sun}–{@code sat}, {@code 7}
 *   as Sunday, wrap-around weekday ranges such as {@code fri-mon}, {@code ?} in the day or weekday
 *   field (same as {@code *}) and {@code L} in the day field (last day of the month). When both the
 *   day and the weekday field are restricted, a day matching either fires (Vixie cron, croniter).
 *   Parsing and next-time computation are cron-utils'.</li>
 *   <li>As a documented Tapline extension, an ISO-8601 duration from {@code PT1S} to {@code P366D}
 *   (for example {@code PT30S}): fires at every whole multiple of the duration since the Unix
 *   epoch, in UTC, whatever the time zone (for tests and sub-minute polling).</li>
 * </ul>
 * Cron expressions are evaluated on the local wall clock of the pipeline's IANA time zone, with
 * the daylight-saving rule of product.md §5 (see {@link #nextAfter}). Instances are immutable and
 * thread-safe.
 */
public final class Interval {

    /** Meltano's aliases and the cron expressions they stand for ({@code CRON_INTERVALS}). */
    public static final Map<String, String> ALIASES = Map.of(
            "@hourly", "0 * * * *",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@weekly", "0 0 * * 0",
            "@monthly", "0 0 1 * *",
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *");

    /**
     * cron-utils' UNIX crontab definition plus {@code L} in the day field. {@code ?} is not enabled
     * here because cron-utils then switches day/weekday matching from OR to AND; it is rewritten to
     * {@code *} before parsing instead, which is what croniter does.
     */
    private static final CronDefinition MELTANO_CRON = CronDefinitionBuilder.defineCron()
            .withMinutes().withValidRange(0, 59).withStrictRange().and()
            .withHours().withValidRange(0, 23).withStrictRange().and()
            .withDayOfMonth().withValidRange(1, 31).supportsL().withStrictRange().and()
            .withMonth().withValidRange(1, 12).withStrictRange().and()
            .withDayOfWeek().withValidRange(0, 7).withMondayDoWValue(1).withIntMapping(7, 0).withStrictRange().and()
            .instance();

    private static final CronParser PARSER = new CronParser(MELTANO_CRON);

    private static final List<String> WEEKDAYS = List.of("sun", "mon", "tue", "wed", "thu", "fri", "sat");
    private static final Pattern WEEKDAY_RANGE = Pattern.compile("([a-zA-Z]{3}|\\d+)-([a-zA-Z]{3}|\\d+)(?:/(\\d+))?");

    /** Upper bound of wall-clock candidates looked at for one answer (a repeated hour has at most 60 or so). */
    private static final int MAX_CANDIDATES = 10_000;

    /** What kind of interval this is. */
    public enum Kind {
        /** Never fires automatically ({@code @manual}, {@code @none}). */
        MANUAL,
        /** Runs once, the first time the scheduler sees the pipeline ({@code @once}). */
        ONCE,
        /** A cron expression evaluated in the pipeline's time zone. */
        CRON,
        /** A fixed period (ISO-8601 duration), a Tapline extension. */
        PERIOD
    }

    private final String text;
    private final Kind kind;
    private final ExecutionTime execution;
    private final Duration period;

    private Interval(String text, Kind kind, ExecutionTime execution, Duration period) {
        this.text = text;
        this.kind = kind;
        this.execution = execution;
        this.period = period;
    }

    /**
     * Parses an interval.
     *
     * @param text the interval as written in meltano.yml or the API (surrounding blanks ignored)
     * @return the parsed interval
     * @throws InvalidInputException 400 on field {@code schedule.interval}, naming the problem
     */
    public static Interval parse(String text) {
        if (text == null || text.isBlank()) {
            throw InvalidInputException.field("schedule.interval", "is required (a cron expression, an alias such as"
                    + " @daily, or @manual)");
        }
        String t = text.trim();
        if (t.equals("@manual") || t.equals("@none")) {
            return new Interval(t, Kind.MANUAL, null, null);
        }
        if (t.equals("@once")) {
            return new Interval(t, Kind.ONCE, null, null);
        }
        if (t.startsWith("P") || t.startsWith("p")) {
            Duration d;
            try {
                d = Duration.parse(t);
            } catch (DateTimeParseException e) {
                throw InvalidInputException.field("schedule.interval",
                        "'" + t + "' is not an ISO-8601 duration such as PT30S");
            }
            if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofDays(366)) > 0) {
                throw InvalidInputException.field("schedule.interval", "a duration must be between PT1S and P366D");
            }
            return new Interval(t, Kind.PERIOD, null, d);
        }
        String expr = t.startsWith("@") ? ALIASES.get(t) : t;
        if (expr == null) {
            throw InvalidInputException.field("schedule.interval", "unknown alias '" + t + "'; use @hourly, @daily, @weekly,"
                    + " @monthly, @yearly, @annually, @midnight, @once, @manual or @none");
        }
        String[] fields = expr.split("\\s+");
        if (fields.length != 5) {
            throw InvalidInputException.field("schedule.interval", "'" + t + "' must have 5 cron fields"
                    + " (minute hour day-of-month month day-of-week)");
        }
        try {
            Cron cron = PARSER.parse(normalize(fields));
            cron.validate();
            return new Interval(t, Kind.CRON, ExecutionTime.forCron(cron), null);
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("schedule.interval", "'" + t + "' is not a valid cron expression: "
                    + e.getMessage());
        }
    }

    /**
     * Rewrites what Meltano accepts and cron-utils does not: {@code ?} in the day or weekday field
     * becomes {@code *}, and a wrap-around weekday range ({@code fri-mon}, {@code 6-1/2}) becomes
     * the list of its days.
     */
    private static String normalize(String[] fields) {
        String[] f = fields.clone();
        if (f[2].equals("?")) {
            f[2] = "*";
        }
        if (f[4].equals("?")) {
            f[4] = "*";
        }
        List<String> parts = new ArrayList<>();
        for (String part : f[4].split(",", -1)) {
            parts.add(unwrapWeekdayRange(part));
        }
        f[4] = String.join(",", parts);
        return String.join(" ", f);
    }

    private static String unwrapWeekdayRange(String part) {
        Matcher m = WEEKDAY_RANGE.matcher(part);
        if (!m.matches()) {
            return part;
        }
        int from = weekday(m.group(1));
        int to = weekday(m.group(2));
        if (from < 0 || to < 0 || from <= to) {
            return part; // an ordinary range, or an invalid one that cron-utils reports
        }
        int step = m.group(3) == null ? 1 : Integer.parseInt(m.group(3));
        if (step < 1) {
            return part;
        }
        List<String> days = new ArrayList<>();
        int n = 0;
        for (int d = from; ; d = (d + 1) % 7) {
            if (n++ % step == 0) {
                days.add(Integer.toString(d));
            }
            if (d == to) {
                break;
            }
        }
        return String.join(",", days);
    }

    /** 0 (Sunday) to 6, 7 as Sunday; -1 when not a weekday. */
    private static int weekday(String s) {
        if (Character.isDigit(s.charAt(0))) {
            int d = s.length() > 1 ? -1 : s.charAt(0) - '0';
            return d == 7 ? 0 : (d > 7 ? -1 : d);
        }
        return WEEKDAYS.indexOf(s.toLowerCase(Locale.ROOT));
    }

    /** The interval as given. */
    public String text() {
        return text;
    }

    /** What kind of interval this is. */
    public Kind kind() {
        return kind;
    }

    /** True for cron expressions and periods, the kinds that have fire times. */
    public boolean isRecurring() {
        return kind == Kind.CRON || kind == Kind.PERIOD;
    }

    /**
     * The first fire time strictly after {@code after}; empty for {@code @manual}, {@code @none}
     * and {@code @once}.
     * <p>Cron expressions match the local wall clock of {@code zone}. Around daylight-saving
     * transitions (product.md §5):
     * <ul>
     *   <li>a matching local time that does not exist (spring forward) fires once, at the first
     *   instant after the gap (for Europe/Berlin on 2026-03-29, {@code 30 2 * * *} fires at 03:00
     *   CEST = 01:00Z); several such times, and a real match at that instant, fire only once;</li>
     *   <li>a matching local time that occurs twice (fall back) fires once, at its first occurrence
     *   (for Europe/Berlin on 2026-10-25, {@code 0 * * * *} fires at 02:00 CEST = 00:00Z but not at
     *   02:00 CET = 01:00Z).</li>
     * </ul>
     * cron-utils on its own skips non-existent times and fires repeated ones twice, so it is asked
     * for wall-clock candidates only, and each candidate is mapped to an instant here.
     *
     * @param after exclusive lower bound
     * @param zone time zone of the wall clock (ignored for periods, which are UTC)
     * @return the next fire time
     */
    public Optional<Instant> nextAfter(Instant after, ZoneId zone) {
        return switch (kind) {
            case MANUAL, ONCE -> Optional.empty();
            case PERIOD -> {
                long p = period.toMillis();
                yield Optional.of(Instant.ofEpochMilli(Math.floorDiv(after.toEpochMilli(), p) * p + p));
            }
            case CRON -> nextCron(after, zone);
        };
    }

    /**
     * The last fire time at or before {@code at}, by the same rules as {@link #nextAfter}; empty
     * for {@code @manual}, {@code @none} and {@code @once}, or when the cron never fired before.
     * Used to find the most recent missed tick for a catch-up run.
     *
     * @param at inclusive upper bound
     * @param zone time zone of the wall clock (ignored for periods)
     * @return the latest fire time not after {@code at}
     */
    public Optional<Instant> lastAtOrBefore(Instant at, ZoneId zone) {
        return switch (kind) {
            case MANUAL, ONCE -> Optional.empty();
            case PERIOD -> {
                long p = period.toMillis();
                yield Optional.of(Instant.ofEpochMilli(Math.floorDiv(at.toEpochMilli(), p) * p));
            }
            case CRON -> lastCron(at, zone);
        };
    }

    /**
     * The next {@code n} fire times strictly after {@code after}, ascending and distinct.
     *
     * @param n how many, at least 0
     * @return at most {@code n} instants (fewer for intervals that stop or never fire)
     */
    public List<Instant> nextTimes(Instant after, ZoneId zone, int n) {
        List<Instant> times = new ArrayList<>(n);
        Instant t = after;
        while (times.size() < n) {
            Optional<Instant> next = nextAfter(t, zone);
            if (next.isEmpty()) {
                break;
            }
            t = next.get();
            times.add(t);
        }
        return times;
    }

    private Optional<Instant> nextCron(Instant after, ZoneId zone) {
        ZoneRules rules = zone.getRules();
        // cron-utils walks the wall clock in UTC, where no local time is missing or repeated.
        ZonedDateTime cursor = LocalDateTime.ofInstant(after, zone).atZone(ZoneOffset.UTC);
        for (int i = 0; i < MAX_CANDIDATES; i++) {
            Optional<ZonedDateTime> candidate = execution.nextExecution(cursor);
            if (candidate.isEmpty()) {
                return Optional.empty();
            }
            Instant at = resolve(candidate.get().toLocalDateTime(), zone, rules);
            if (at.isAfter(after)) {
                return Optional.of(at);
            }
            // Only in the second pass of a repeated hour: this wall time already fired in the first.
            cursor = candidate.get();
        }
        return Optional.empty();
    }

    private Optional<Instant> lastCron(Instant at, ZoneId zone) {
        ZoneRules rules = zone.getRules();
        ZonedDateTime local = ZonedDateTime.ofInstant(at, zone);
        // In the second pass of a repeated hour, wall times up to `slack` later already fired (first pass).
        Duration slack = Duration.between(local.withEarlierOffsetAtOverlap().toInstant(), at);
        ZonedDateTime cursor = local.toLocalDateTime().plus(slack).plusSeconds(1).atZone(ZoneOffset.UTC);
        for (int i = 0; i < MAX_CANDIDATES; i++) {
            Optional<ZonedDateTime> candidate = execution.lastExecution(cursor);
            if (candidate.isEmpty()) {
                return Optional.empty();
            }
            Instant t = resolve(candidate.get().toLocalDateTime(), zone, rules);
            if (!t.isAfter(at)) {
                return Optional.of(t);
            }
            cursor = candidate.get();
        }
        return Optional.empty();
    }

    /**
     * The instant a wall-clock fire time stands for: the time itself when it exists once, its first
     * occurrence when it exists twice, and the end of the gap when it does not exist.
     */
    static Instant resolve(LocalDateTime wall, ZoneId zone, ZoneRules rules) {
        ZoneOffsetTransition transition = rules.getTransition(wall);
        if (transition != null && transition.isGap()) {
            return transition.getInstant();
        }
        return ZonedDateTime.ofLocal(wall, zone, null).withEarlierOffsetAtOverlap().toInstant();
    }

    /**
     * Parses an IANA time zone.
     *
     * @param zone a region ID such as {@code Europe/Berlin}, or {@code UTC}; null or blank means UTC
     * @return the zone
     * @throws InvalidInputException 400 on field {@code schedule.timezone}, naming the zone
     */
    public static ZoneId zone(String zone) {
        if (zone == null || zone.isBlank()) {
            return ZoneId.of("UTC");
        }
        try {
            return ZoneId.of(zone.trim());
        } catch (DateTimeException e) {
            throw InvalidInputException.field("schedule.timezone", "'" + zone + "' is not an IANA time zone such as"
                    + " Europe/Berlin or UTC");
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
