package io.tapline.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.tapline.common.error.ProblemException;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * A pipeline schedule interval in Meltano's forms (meltano-state.md §5): the aliases
 * {@code @hourly @daily @weekly @monthly @yearly @annually @midnight}, {@code @once},
 * {@code @manual}/{@code @none} (never automatic), or any 5-field cron (lists, ranges, steps,
 * month and weekday names, 7 as Sunday), parsed by cron-utils. As a documented Tapline extension,
 * an ISO-8601 duration such as {@code PT30S} fires at fixed multiples of that duration since the
 * epoch (for tests and sub-minute polling).
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

    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

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
     * @param text the interval as written in meltano.yml or the API
     * @throws ProblemException 400 naming the problem
     */
    public static Interval parse(String text) {
        if (text == null || text.isBlank()) {
            throw ProblemException.invalid("schedule.interval", "is required (a cron expression, an alias such as"
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
            try {
                Duration d = Duration.parse(t);
                if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofDays(366)) > 0) {
                    throw ProblemException.invalid("schedule.interval", "a duration must be between PT1S and P366D");
                }
                return new Interval(t, Kind.PERIOD, null, d);
            } catch (DateTimeParseException e) {
                throw ProblemException.invalid("schedule.interval", "'" + t + "' is not an ISO-8601 duration such as PT30S");
            }
        }
        String expr = t.startsWith("@") ? ALIASES.get(t) : t;
        if (expr == null) {
            throw ProblemException.invalid("schedule.interval", "unknown alias '" + t + "'; use @hourly, @daily, @weekly,"
                    + " @monthly, @yearly, @annually, @midnight, @once, @manual or @none");
        }
        if (expr.split("\\s+").length != 5) {
            throw ProblemException.invalid("schedule.interval", "'" + t + "' must have 5 cron fields"
                    + " (minute hour day-of-month month day-of-week)");
        }
        try {
            Cron cron = PARSER.parse(expr);
            cron.validate();
            return new Interval(t, Kind.CRON, ExecutionTime.forCron(cron), null);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("schedule.interval", "'" + t + "' is not a valid cron expression: "
                    + e.getMessage());
        }
    }

    /** The interval as given. */
    public String text() {
        return text;
    }

    public Kind kind() {
        return kind;
    }

    /**
     * The first fire time strictly after {@code after}, evaluated in {@code zone}; empty for
     * manual and once intervals.
     */
    public Optional<Instant> nextAfter(Instant after, ZoneId zone) {
        return switch (kind) {
            case MANUAL, ONCE -> Optional.empty();
            case PERIOD -> {
                long p = period.toMillis();
                long next = Math.floorDiv(after.toEpochMilli(), p) * p + p;
                yield Optional.of(Instant.ofEpochMilli(next));
            }
            case CRON -> execution.nextExecution(ZonedDateTime.ofInstant(after, zone)).map(ZonedDateTime::toInstant);
        };
    }

    /**
     * Parses an IANA time zone.
     *
     * @throws ProblemException 400 naming the zone
     */
    public static ZoneId zone(String zone) {
        if (zone == null || zone.isBlank()) {
            return ZoneId.of("UTC");
        }
        try {
            return ZoneId.of(zone.trim());
        } catch (java.time.DateTimeException e) {
            throw ProblemException.invalid("schedule.timezone", "'" + zone + "' is not an IANA time zone such as"
                    + " Europe/Berlin or UTC");
        }
    }
}
