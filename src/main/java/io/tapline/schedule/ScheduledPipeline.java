package io.tapline.schedule;

import io.tapline.pipeline.schedule.CatchUp;
import io.tapline.pipeline.schedule.Interval;

import java.time.OffsetDateTime;

/**
 * The columns of a pipeline that the schedule ticker needs, loaded without the entity and its
 * plugins (one query for every scheduled pipeline at start).
 *
 * @param id pipeline id
 * @param name pipeline name
 * @param version row version; a different version means the pipeline changed
 * @param interval schedule interval as stored (see {@link Interval})
 * @param timezone IANA time zone as stored
 * @param enabled false while paused
 * @param catchUp missed-tick policy
 * @param createdAt creation time, the tick of an {@code @once} schedule
 */
public record ScheduledPipeline(long id, String name, long version, String interval, String timezone,
                                boolean enabled, CatchUp catchUp, OffsetDateTime createdAt) {
}
