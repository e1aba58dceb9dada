package io.tapline.schedule;

import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineChanged;
import io.tapline.pipeline.NextRuns;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.pipeline.schedule.Interval;
import io.tapline.run.Run;
import io.tapline.run.RunStatus;
import io.tapline.schedule.api.ScheduleResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

/**
 * Schedule views (next fire times, also for pipeline responses as the {@link NextRuns} port) and
 * the automatic pause after consecutive failures.
 * Pausing and resuming by hand is {@link io.tapline.pipeline.PipelineService#setScheduleEnabled}.
 */
@ApplicationScoped
@Transactional
public class ScheduleService implements NextRuns {

    private static final Logger LOG = Logger.getLogger(ScheduleService.class);

    /** Fire times listed when {@code next} is not given. */
    public static final int DEFAULT_NEXT = 5;
    /** Most fire times listed at once. */
    public static final int MAX_NEXT = 100;

    private final PipelineRepository pipelines;
    private final ScheduleRepository repository;
    private final Clock clock;
    private final Event<PipelineChanged> changed;

    /** Events outbox (issue 21): {@code pipeline.paused} is recorded in the pause's transaction. */
    @jakarta.inject.Inject
    Event<PipelinePaused> paused;

    public ScheduleService(PipelineRepository pipelines, ScheduleRepository repository, Clock clock,
                           Event<PipelineChanged> changed) {
        this.pipelines = pipelines;
        this.repository = repository;
        this.clock = clock;
        this.changed = changed;
    }

    /**
     * The pipeline's schedule with its next fire times.
     *
     * @param name pipeline name
     * @param next how many fire times, as sent ({@value #DEFAULT_NEXT} when null or blank)
     * @throws DomainException 404 unknown pipeline, 400 when {@code next} is not 1 to {@value #MAX_NEXT}
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public ScheduleResponse view(String name, String next) {
        int n = count(next);
        Pipeline p = pipelines.findByName(name).orElseThrow(() -> new NotFoundException("Pipeline", name));
        List<ScheduleResponse.FireTime> times = List.of();
        if (p.scheduleEnabled) {
            ZoneId zone = Interval.zone(p.scheduleTimezone);
            times = Interval.parse(p.scheduleInterval).nextTimes(clock.instant(), zone, n).stream()
                    .map(t -> new ScheduleResponse.FireTime(t.toString(),
                            ZonedDateTime.ofInstant(t, zone).format(DateTimeFormatter.ISO_ZONED_DATE_TIME)))
                    .toList();
        }
        return new ScheduleResponse(p.scheduleInterval, p.scheduleTimezone, p.scheduleEnabled, p.scheduleCatchUp,
                p.schedulePauseAfterFailures, p.schedulePausedReason, times);
    }

    private static int count(String text) {
        if (text == null || text.isBlank()) {
            return DEFAULT_NEXT;
        }
        int n;
        try {
            n = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 1 || n > MAX_NEXT) {
            throw InvalidInputException.field("next", "must be a whole number from 1 to " + MAX_NEXT);
        }
        return n;
    }

    /**
     * The pipeline's next fire time after now: null when manual, {@code @once}, paused, or when its
     * stored interval or zone no longer parses.
     */
    @Override
    @Transactional(Transactional.TxType.SUPPORTS)
    public Instant nextRunAt(Pipeline p) {
        if (!p.scheduleEnabled) {
            return null;
        }
        try {
            return Interval.parse(p.scheduleInterval).nextAfter(clock.instant(), Interval.zone(p.scheduleTimezone))
                    .orElse(null);
        } catch (InvalidInputException e) {
            return null;
        }
    }

    /**
     * Pauses the run's pipeline when it has {@code pauseAfterFailures} set and this failure makes
     * that many consecutive failed runs (see {@link ScheduleRepository#consecutiveFailures}). The
     * reason is kept in {@code schedule_paused_reason} and shown by the schedule view; resuming
     * clears it. The run engine calls this after every terminal status; other statuses are ignored.
     *
     * @param run a run that just ended
     * @return the reason, when this call paused the pipeline
     */
    public Optional<String> onRunFinished(Run run) {
        if (run.status != RunStatus.FAILED || run.pipelineId == null) {
            return Optional.empty();
        }
        Pipeline p = pipelines.findById(run.pipelineId);
        if (p == null || !p.scheduleEnabled || p.schedulePauseAfterFailures == null) {
            return Optional.empty();
        }
        int limit = p.schedulePauseAfterFailures;
        if (repository.consecutiveFailures(p.id, p.retryMaxAttempts, limit) < limit) {
            return Optional.empty();
        }
        String reason = "Paused after " + limit + " consecutive failed run" + (limit == 1 ? "" : "s")
                + " (the last: run " + run.id + "). Resume with POST /api/v1/pipelines/" + p.name + "/resume.";
        if (!repository.pause(p.id, reason)) {
            return Optional.empty();
        }
        LOG.warnf("Pipeline '%s': %s", p.name, reason);
        paused.fire(new PipelinePaused(p.id, p.name, reason, run.id, limit));
        changed.fire(new PipelineChanged(p.id, p.name));
        return Optional.of(reason);
    }
}
