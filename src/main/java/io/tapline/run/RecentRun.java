package io.tapline.run;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A run in short, as list views draw it (the console's sparkline and records column).
 *
 * @param id run id
 * @param status QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED
 * @param trigger API, SCHEDULE, RETRY, ...
 * @param startedAt when it started (UTC), null while queued
 * @param endedAt when it ended (UTC), null while active
 * @param durationMs ended minus started in milliseconds; null until it has ended
 * @param recordsTotal RECORD messages relayed
 */
public record RecentRun(UUID id, String status, String trigger, OffsetDateTime startedAt, OffsetDateTime endedAt,
                        Long durationMs, long recordsTotal) {
}
