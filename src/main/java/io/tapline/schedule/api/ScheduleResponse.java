package io.tapline.schedule.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.tapline.pipeline.schedule.CatchUp;

import java.util.List;

/**
 * Body of {@code GET /api/v1/pipelines/{name}/schedule}.
 *
 * @param interval the interval as stored
 * @param timezone IANA time zone of the wall clock
 * @param enabled false while paused
 * @param catchUp missed-tick policy
 * @param pauseAfterFailures consecutive failed runs that pause the schedule, or null for never
 * @param pausedReason why the schedule paused itself, or null
 * @param next upcoming fire times, ascending; empty when manual, {@code @once} or paused
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record ScheduleResponse(String interval, String timezone, boolean enabled, CatchUp catchUp,
                               @JsonInclude(JsonInclude.Include.ALWAYS) Integer pauseAfterFailures,
                               @JsonInclude(JsonInclude.Include.ALWAYS) String pausedReason,
                               List<FireTime> next) {

    /**
     * One fire time.
     *
     * @param utc the instant in UTC, e.g. {@code 2026-03-29T01:00:00Z}
     * @param local the same instant on the pipeline's wall clock, ISO-8601 with offset and zone,
     *              e.g. {@code 2026-03-29T03:00:00+02:00[Europe/Berlin]}
     */
    public record FireTime(String utc, String local) {
    }
}
