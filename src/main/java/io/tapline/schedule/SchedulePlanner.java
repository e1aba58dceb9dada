package io.tapline.schedule;

import io.tapline.common.error.InvalidInputException;
import io.tapline.pipeline.schedule.Interval;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans a pipeline's next fire time from its stored schedule for a {@link ScheduleTicker}: parses
 * its interval (once per distinct text: many pipelines share one) and time zone, and computes the
 * next tick after a given time. A schedule that no longer parses, or an unusable zone, is logged and
 * left unplanned. Plain Java, no time source of its own; thread-safe.
 */
final class SchedulePlanner {

    private static final Logger LOG = Logger.getLogger(ScheduleTicker.class);

    private final Map<String, Optional<Interval>> intervals = new ConcurrentHashMap<>();

    /**
     * A pipeline's parsed schedule and next fire time.
     *
     * @param interval parsed interval, null when the stored one does not parse (or the zone is unusable)
     * @param zone parsed zone, null when unusable
     * @param next next fire time, null when none (paused, manual, {@code @once}, unparsable)
     */
    record Plan(Interval interval, ZoneId zone, Instant next) {
    }

    /**
     * The plan of {@code p} with its next fire time after {@code now}; {@code nextFires} (when not
     * null) remembers those times by interval and zone for calls with the same {@code now}.
     */
    Plan plan(ScheduledPipeline p, Instant now, Map<String, Optional<Instant>> nextFires) {
        Interval interval = intervals.computeIfAbsent(p.interval(), SchedulePlanner::parseOrEmpty).orElse(null);
        ZoneId zone;
        try {
            zone = Interval.zone(p.timezone());
        } catch (InvalidInputException e) {
            LOG.warnf("Pipeline '%s' has an unusable time zone '%s'; it is not scheduled", p.name(), p.timezone());
            interval = null;
            zone = null;
        }
        Instant next = null;
        if (p.enabled() && interval != null) {
            Interval i = interval;
            ZoneId z = zone;
            next = (nextFires == null ? i.nextAfter(now, z)
                    : nextFires.computeIfAbsent(p.interval() + "\n" + z.getId(), k -> i.nextAfter(now, z))).orElse(null);
        }
        return new Plan(interval, zone, next);
    }

    private static Optional<Interval> parseOrEmpty(String text) {
        try {
            return Optional.of(Interval.parse(text));
        } catch (InvalidInputException e) {
            LOG.warnf("Schedule interval '%s' no longer parses (%s); pipelines using it are not scheduled", text,
                    e.getMessage());
            return Optional.empty();
        }
    }
}
