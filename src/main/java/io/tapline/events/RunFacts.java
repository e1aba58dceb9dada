package io.tapline.events;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A run as the events need it, read with a fresh native query in the transaction that ended it
 * (the terminal update is native SQL, so a loaded entity may be stale).
 *
 * @param id run id
 * @param pipelineId pipeline id (null when the pipeline was deleted)
 * @param pipelineName pipeline name
 * @param stateId Meltano state ID
 * @param trigger SCHEDULE, MANUAL, API or RETRY
 * @param status the terminal status
 * @param attempt attempt number (1 = first)
 * @param queuedAt when the run was created
 * @param startedAt when it started, null for runs cancelled while queued
 * @param endedAt when it ended
 * @param failedComponent extractor, mapper, loader, transform or service; null unless failed
 * @param errorSummary reason of a failure or cancel
 * @param recordsTotal RECORD messages relayed
 * @param streamCounts JSON object {@code {"streams": {name: counts}}}
 * @param stateBeforeBytes UTF-8 size of the merged state when the run started (0 when none)
 * @param stateAfterBytes UTF-8 size of the state the run ended with: its last checkpoint, else
 *                        what it started from (a run that stored nothing left the state as it was)
 * @param stateUnchanged whether the run left a non-empty state exactly as it found it
 * @param extractor extractor plugin name (null when the pipeline was deleted)
 * @param extractorNamespace the extractor's Meltano namespace (or null)
 * @param loader loader plugin name
 * @param loaderNamespace the loader's Meltano namespace (or null)
 * @param notAdvancingRuns the pipeline's own threshold, or null for the setting
 * @param stateNotPassed the state ID had bookmarks the extractor was not given (no {@code state} capability)
 */
public record RunFacts(UUID id, Long pipelineId, String pipelineName, String stateId, String trigger, String status,
                       int attempt, OffsetDateTime queuedAt, OffsetDateTime startedAt, OffsetDateTime endedAt,
                       String failedComponent, String errorSummary, long recordsTotal, String streamCounts,
                       long stateBeforeBytes, long stateAfterBytes, boolean stateUnchanged, String extractor, String extractorNamespace,
                       String loader, String loaderNamespace, Integer notAdvancingRuns,
                       boolean stateNotPassed) {
}
