package io.tapline.pipeline.api;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A pipeline as the API shows it.
 *
 * @param name pipeline name
 * @param extractor extractor plugin name
 * @param mappers mapper plugin names
 * @param loader loader plugin name
 * @param transform transform step, or null
 * @param environment Meltano environment
 * @param stateIdSuffix state ID suffix, or null
 * @param stateId the effective Meltano state ID
 * @param stateIdDerived true when derived as {@code <environment>:<extractor>-to-<loader>[:<suffix>]}
 * @param schedule the schedule
 * @param stateStrategy auto, merge or overwrite
 * @param stateCommitPolicy CHECKPOINT or ON_SUCCESS
 * @param timeoutSeconds run timeout, or null
 * @param retry retry policy
 * @param env environment variables
 * @param version version number, also the ETag
 * @param createdAt creation time (UTC)
 * @param updatedAt last change (UTC)
 * @param nextRunAt next scheduled fire time (UTC); null when manual, {@code @once} or paused
 * @param lastRun the newest run that was not a skipped tick, or null
 * @param executor {@code singer}, {@code kubernetes} or {@code meltano}
 * @param meltanoProjectDir Meltano project directory, or null
 * @param meltanoJob Meltano job, or null
 * @param meltanoStateBackendDir file state backend root of the {@code meltano} executor, or null
 * @param warnings what a user should know about this pipeline, e.g. the other pipelines that share
 *     its state ID (they share bookmarks, and one active run per state ID keeps them from running
 *     together); empty when there is nothing
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record PipelineResponse(String name, String extractor, List<String> mappers, String loader,
                               PipelineRequest.Transform transform, String environment, String stateIdSuffix,
                               String stateId, boolean stateIdDerived, PipelineRequest.Schedule schedule,
                               String stateStrategy, String stateCommitPolicy, Integer timeoutSeconds,
                               PipelineRequest.Retry retry, Map<String, String> env, long version,
                               OffsetDateTime createdAt, OffsetDateTime updatedAt,
                               @JsonInclude(JsonInclude.Include.ALWAYS) OffsetDateTime nextRunAt,
                               @JsonInclude(JsonInclude.Include.ALWAYS) LastRun lastRun, String executor,
                               String meltanoProjectDir, String meltanoJob, String meltanoStateBackendDir,
                               List<String> warnings) {

    /** This response with these warnings. */
    public PipelineResponse withWarnings(List<String> list) {
        return new PipelineResponse(name, extractor, mappers, loader, transform, environment, stateIdSuffix, stateId,
                stateIdDerived, schedule, stateStrategy, stateCommitPolicy, timeoutSeconds, retry, env, version,
                createdAt, updatedAt, nextRunAt, lastRun, executor, meltanoProjectDir, meltanoJob,
                meltanoStateBackendDir, List.copyOf(list));
    }

    /**
     * The newest run of a pipeline, in short.
     *
     * @param id run id
     * @param status QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED
     * @param endedAt when it ended (UTC), null while active
     */
    public record LastRun(UUID id, String status, @JsonInclude(JsonInclude.Include.ALWAYS) OffsetDateTime endedAt) {
    }
}
