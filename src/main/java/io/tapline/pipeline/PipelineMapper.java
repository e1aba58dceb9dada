package io.tapline.pipeline;

import io.tapline.common.json.Jsons;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.plugin.Plugin;

import java.time.Instant;
import java.time.ZoneOffset;

/** Renders {@link Pipeline} entities as API responses. Stateless. */
public final class PipelineMapper {

    private PipelineMapper() {
    }

    /** The API view of a pipeline, without its next fire time and last run. */
    public static PipelineResponse toResponse(Pipeline p) {
        return toResponse(p, null, null);
    }

    /**
     * The API view of a pipeline.
     *
     * @param nextRunAt next scheduled fire time, or null
     * @param lastRun newest run, or null
     */
    public static PipelineResponse toResponse(Pipeline p, Instant nextRunAt, PipelineResponse.LastRun lastRun) {
        PipelineRequest.Transform transform = p.transform == null ? null
                : new PipelineRequest.Transform(p.transform.name, Jsons.readStrings(p.transformArgs));
        return new PipelineResponse(p.name, p.extractor.name, p.mappers.stream().map(m -> m.name).toList(),
                p.loader.name, transform, p.environment, p.stateIdSuffix, p.stateId, !p.stateIdOverridden,
                new PipelineRequest.Schedule(p.scheduleInterval, p.scheduleTimezone, p.scheduleEnabled,
                        p.scheduleCatchUp, p.schedulePauseAfterFailures),
                p.stateStrategy.id(), p.stateCommitPolicy.name(), p.timeoutSeconds,
                new PipelineRequest.Retry(p.retryMaxAttempts, p.retryBackoffSeconds, p.retryBackoffMaxSeconds),
                Jsons.readStringMap(p.env), p.version, p.createdAt, p.updatedAt,
                nextRunAt == null ? null : nextRunAt.atOffset(ZoneOffset.UTC), lastRun, p.executor, p.meltanoProjectDir,
                p.meltanoJob, p.meltanoStateBackendDir);
    }

    /** {@code type/name} of a plugin, for messages. */
    static String ref(Plugin p) {
        return p.type.id() + "/" + p.name;
    }
}
