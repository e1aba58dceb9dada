package io.tapline.run.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A run as the API shows it. Times are UTC.
 *
 * @param id run id (UUIDv7)
 * @param pipeline pipeline name
 * @param stateId Meltano state ID the run reads and writes
 * @param trigger SCHEDULE, MANUAL, API or RETRY
 * @param scheduledFor the schedule tick, for scheduled runs
 * @param status QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED or SKIPPED
 * @param attempt 1 for the first attempt, 2 for the first retry, ...
 * @param retryOf the failed run this one retries
 * @param fullRefresh whether bookmarks were ignored
 * @param fullRefreshStreams streams whose bookmarks were dropped
 * @param stateStrategy auto, merge or overwrite
 * @param stateCommitPolicy CHECKPOINT or ON_SUCCESS
 * @param queuedAt when the run was created
 * @param startedAt when a runner started it
 * @param endedAt when it ended
 * @param durationMs ended (or now) minus started, in milliseconds
 * @param lastHeartbeatAt last heartbeat of the owner instance
 * @param ownerInstance the replica running it
 * @param cancelRequestedAt when a cancel was requested
 * @param failedComponent extractor, mapper, loader, transform or service
 * @param exitCodes exit code per component ({@code extractor}, {@code loader}, {@code mapper:<name>}, {@code transform})
 * @param errorSummary readable reason of a failure or cancel
 * @param warnings warnings, e.g. an empty state that was not stored
 * @param streams per-stream counts from the tap: records, schemas, activateVersions, batches, bytes
 * @param recordsTotal RECORD messages relayed
 * @param bytesTotal bytes relayed from the tap
 * @param stateMessages STATE messages from the tap
 * @param stateLines valid state lines from the target
 * @param invalidStateLines target stdout lines that were not JSON (logged, never stored)
 * @param stateBefore merged state when the run started
 * @param stateAfter merged state after the run's last stored checkpoint
 * @param stages the run's stages (extract-load, transform) with their times and results
 * @param failure the typed failure of a FAILED or CANCELLED run (docs/failures.md), or null
 * @param stateWarnings state warnings computed when the run ended, {@code [{"type": "state.not_advancing"
 *     | "state.large", "message": ...}]}; their messages are also in {@code warnings} (docs/events.md)
 * @param createdBy who triggered the run: the token's actor, {@code scheduler} or {@code retry}
 * @param cancelledBy who asked to cancel it, or null
 * @param catalogSource where the extractor's catalog came from: {@code user} (the plugin's stored
 *     catalog), {@code cache} (the catalog cache, no {@code --discover}) or {@code discovered}; null
 *     when the extractor takes no catalog
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record RunResponse(UUID id, String pipeline, String stateId, String trigger, OffsetDateTime scheduledFor,
                          String status, int attempt, UUID retryOf, boolean fullRefresh, List<String> fullRefreshStreams,
                          String stateStrategy, String stateCommitPolicy, OffsetDateTime queuedAt,
                          OffsetDateTime startedAt, OffsetDateTime endedAt, Long durationMs,
                          OffsetDateTime lastHeartbeatAt, String ownerInstance, OffsetDateTime cancelRequestedAt,
                          String failedComponent, Map<String, Integer> exitCodes, String errorSummary,
                          List<String> warnings, JsonNode streams, long recordsTotal, long bytesTotal,
                          Long stateMessages, int stateLines, int invalidStateLines, JsonNode stateBefore,
                          JsonNode stateAfter, JsonNode stages, Failure failure, JsonNode stateWarnings,
                          String createdBy, String cancelledBy, String catalogSource) {

    /**
     * Why a run failed or was cancelled, typed (catalogue: docs/failures.md).
     *
     * @param type {@code configuration}, {@code connector_exit}, {@code connector_protocol}, {@code timeout},
     *     {@code installation}, {@code cancelled}, {@code state_store}, {@code lost_instance}, {@code resource} or
     *     {@code internal}
     * @param component extractor, mapper, loader, transform or service; null for a cancel
     * @param retryable whether the retry policy retries it
     * @param message the readable reason (same text as {@code errorSummary})
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Failure(String type, String component, boolean retryable, String message) {
    }
}
