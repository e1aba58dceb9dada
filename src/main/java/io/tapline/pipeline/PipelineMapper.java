package io.tapline.pipeline;

import io.tapline.common.api.Names;
import io.tapline.common.error.Problem;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.plugin.Plugin;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/** Renders {@link Pipeline} entities as API responses and checks request fields. Stateless. */
public final class PipelineMapper {

    /** Members of {@link PipelineResponse} that a merge patch cannot set. */
    static final List<String> READ_ONLY = List.of("stateIdDerived", "version", "createdAt", "updatedAt",
            "nextRunAt", "lastRun", "warnings");

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
     * @param lastRun newest run ({@link LastRuns}), or null
     */
    public static PipelineResponse toResponse(Pipeline p, Instant nextRunAt, LastRuns.LastRun lastRun) {
        PipelineRequest.Transform transform = p.transform == null ? null
                : new PipelineRequest.Transform(p.transform.name, Jsons.readStrings(p.transformArgs));
        PipelineResponse.LastRun last = lastRun == null ? null
                : new PipelineResponse.LastRun(lastRun.id(), lastRun.status(), lastRun.endedAt());
        return new PipelineResponse(p.name, p.extractor.name, p.mappers.stream().map(m -> m.name).toList(),
                p.loader.name, transform, p.environment, p.stateIdSuffix, p.stateId, !p.stateIdOverridden,
                new PipelineRequest.Schedule(p.scheduleInterval, p.scheduleTimezone, p.scheduleEnabled,
                        p.scheduleCatchUp, p.schedulePauseAfterFailures),
                p.stateStrategy.id(), p.stateCommitPolicy.name(), p.timeoutSeconds,
                new PipelineRequest.Retry(p.retryMaxAttempts, p.retryBackoffSeconds, p.retryBackoffMaxSeconds),
                Jsons.readStringMap(p.env), p.version, p.createdAt, p.updatedAt,
                nextRunAt == null ? null : nextRunAt.atOffset(ZoneOffset.UTC), last, p.executor, p.meltanoProjectDir,
                p.meltanoJob, p.meltanoStateBackendDir, List.of());
    }

    /** {@code type/name} of a plugin, for messages. */
    static String ref(Plugin p) {
        return p.type.id() + "/" + p.name;
    }

    /** The same request without an explicit state ID (so the state ID is derived). */
    static PipelineRequest withoutStateId(PipelineRequest r) {
        return new PipelineRequest(r.name(), r.extractor(), r.mappers(), r.loader(), r.transform(), r.environment(),
                r.stateIdSuffix(), null, r.schedule(), r.stateStrategy(), r.stateCommitPolicy(), r.timeoutSeconds(),
                r.retry(), r.env(), r.executor(), r.meltanoProjectDir(), r.meltanoJob(), r.meltanoStateBackendDir());
    }

    /**
     * Checks the executor fields: {@code singer} (default), {@code kubernetes} (the Singer engine in a
     * Kubernetes Job per run) or {@code meltano}; the latter needs an
     * absolute {@code meltanoProjectDir} and a derived state ID, because {@code meltano run} always
     * uses {@code <environment>:<extractor>-to-<loader>[:<suffix>]} (meltano-state.md §3).
     */
    static String meltanoExecutor(PipelineRequest req, List<Problem.FieldError> errors) {
        String executor = req.executor() == null ? "singer" : req.executor().trim();
        if (!executor.equals("singer") && !executor.equals("meltano") && !executor.equals("kubernetes")) {
            errors.add(new Problem.FieldError("executor", "must be singer, kubernetes or meltano"));
        }
        for (String[] f : new String[][] {{"meltanoProjectDir", req.meltanoProjectDir()},
                {"meltanoStateBackendDir", req.meltanoStateBackendDir()}}) {
            String v = blankToNull(f[1]);
            if (v != null && (!v.startsWith("/") || v.length() > 4096 || v.indexOf('\0') >= 0
                    || v.contains("/../") || v.endsWith("/.."))) {
                errors.add(new Problem.FieldError(f[0], "must be a normalised absolute path of at most 4096 characters"));
            }
        }
        if (blankToNull(req.meltanoJob()) != null && !Names.PLUGIN_NAME.matcher(req.meltanoJob().trim()).matches()) {
            errors.add(new Problem.FieldError("meltanoJob", "must be a Meltano job name (lowercase letters, digits, '-', '_')"));
        }
        if (executor.equals("meltano")) {
            if (blankToNull(req.meltanoProjectDir()) == null) {
                errors.add(new Problem.FieldError("meltanoProjectDir", "is required by the meltano executor: the"
                        + " directory holding meltano.yml"));
            }
            if (req.stateId() != null) {
                errors.add(new Problem.FieldError("stateId", "cannot be overridden with the meltano executor: meltano"
                        + " run always uses <environment>:<extractor>-to-<loader>[:<suffix>]"));
            }
        }
        return executor;
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
