package io.tapline.pipeline.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.tapline.pipeline.StateCommitPolicy;
import io.tapline.pipeline.StateStrategy;
import io.tapline.pipeline.schedule.CatchUp;

import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /api/v1/pipelines} and {@code PUT /api/v1/pipelines/{name}}.
 *
 * @param name pipeline name (Meltano plugin-name rules); on PUT omitted or equal to the path
 * @param extractor name of an existing extractor plugin (required)
 * @param mappers names of existing mapper plugins, in order
 * @param loader name of an existing loader plugin (required)
 * @param transform optional step run after a successful extract-load
 * @param environment Meltano environment name, first component of the state ID (default {@code dev})
 * @param stateIdSuffix optional last component of the state ID (no {@code :})
 * @param stateId explicit state ID overriding the derived one
 * @param schedule when to run (default {@code @manual})
 * @param stateStrategy auto (default), merge or overwrite
 * @param stateCommitPolicy CHECKPOINT (default) or ON_SUCCESS
 * @param timeoutSeconds run timeout in seconds, or null for none
 * @param retry retry policy (default: 1 attempt)
 * @param env environment variables for every process of the pipeline
 * @param executor {@code singer} (default: Tapline runs the connectors), {@code kubernetes} (the connectors in a Kubernetes Job per run) or {@code meltano}
 *     ({@code meltano run} in {@code meltanoProjectDir})
 * @param meltanoProjectDir absolute path of the Meltano project, required by the {@code meltano} executor
 * @param meltanoJob Meltano job: the {@code meltano} executor runs {@code meltano run <job>}; set by the
 *     meltano.yml import for pipelines made from jobs
 * @param meltanoStateBackendDir absolute root of the file state backend the {@code meltano} executor
 *     exchanges state through; default {@code tapline.meltano.state-backend-dir}
 */
public record PipelineRequest(
        @Schema(description = "Pipeline name; required on POST, on PUT omitted or equal to the path", example = "people")
        String name,
        @Schema(required = true, description = "Name of an extractor plugin", example = "tap-csv") String extractor,
        List<String> mappers,
        @Schema(required = true, description = "Name of a loader plugin", example = "target-jsonl") String loader,
                              Transform transform, String environment, String stateIdSuffix, String stateId,
                              Schedule schedule, StateStrategy stateStrategy, StateCommitPolicy stateCommitPolicy,
                              Integer timeoutSeconds, Retry retry, Map<String, String> env, String executor,
                              String meltanoProjectDir, String meltanoJob, String meltanoStateBackendDir) {

    /** A request for the default {@code singer} executor, without the Meltano-CLI fields. */
    public PipelineRequest(String name, String extractor, List<String> mappers, String loader, Transform transform,
                           String environment, String stateIdSuffix, String stateId, Schedule schedule,
                           StateStrategy stateStrategy, StateCommitPolicy stateCommitPolicy, Integer timeoutSeconds,
                           Retry retry, Map<String, String> env) {
        this(name, extractor, mappers, loader, transform, environment, stateIdSuffix, stateId, schedule, stateStrategy,
                stateCommitPolicy, timeoutSeconds, retry, env, null, null, null, null);
    }

    /**
     * The transform step.
     *
     * @param plugin name of a utility or transformer plugin (for example {@code dbt-postgres})
     * @param args arguments of the command (for example {@code ["run"]})
     */
    @Schema(example = "{\"plugin\": \"dbt-postgres\", \"args\": [\"run\"]}")
    public record Transform(@Schema(required = true, example = "dbt-postgres") String plugin,
                            @Schema(example = "[\"run\"]") List<String> args) {
    }

    /**
     * The schedule.
     *
     * @param interval Meltano interval: cron, {@code @daily} etc., {@code @once}, {@code @manual}/{@code @none},
     *                 or an ISO-8601 duration such as {@code PT30S} (Tapline extension)
     * @param timezone IANA time zone the cron is evaluated in (default UTC)
     * @param enabled false pauses automatic runs (default true)
     * @param catchUp NONE (default) or ONE: one run for missed ticks when a replica starts or the schedule resumes
     * @param pauseAfterFailures pause the schedule after this many consecutive failed runs (1 to 1000); null = never
     */
    @Schema(example = "{\"interval\": \"@daily\", \"timezone\": \"Europe/Berlin\"}")
    public record Schedule(@Schema(description = "Meltano interval, cron or ISO-8601 duration; default @manual",
            example = "@daily") String interval, String timezone, Boolean enabled, CatchUp catchUp,
                           Integer pauseAfterFailures) {

        /** A schedule with the default policies. */
        public Schedule(String interval, String timezone, Boolean enabled) {
            this(interval, timezone, enabled, null, null);
        }
    }

    /**
     * Retry policy for failed runs.
     *
     * @param maxAttempts attempts in total, 1 to 100 (1 = no retry)
     * @param backoffSeconds wait before the first retry; doubles each attempt
     * @param maxBackoffSeconds cap of the wait
     */
    @Schema(example = "{\"maxAttempts\": 3, \"backoffSeconds\": 60}")
    public record Retry(Integer maxAttempts, Integer backoffSeconds, Integer maxBackoffSeconds) {
    }
}
