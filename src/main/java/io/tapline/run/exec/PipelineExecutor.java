package io.tapline.run.exec;

import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPreparation;

import java.util.Map;

/**
 * How a claimed run is executed, chosen by the pipeline's {@code executor}: {@code singer} (the
 * connectors as processes on this replica, {@link SingerExecutor}), {@code meltano} (the Meltano
 * CLI, {@link MeltanoExecutor}) or {@code kubernetes} (a Job per run, {@link KubernetesExecutor},
 * whose outcome {@link KubernetesExecutor#HANDED_OVER} tells the orchestrator that the Job's runner
 * records the run). {@link RunExecutor} loads the plan, calls {@link #prepare} before
 * the run log opens, registers the run for heartbeat, cancel and shutdown, calls {@link #execute}
 * and records the outcome through the one end path ({@link RunFinisher}); every implementation
 * shares the preparation ({@link RunPreparation}), the process watch loop ({@link ProcessWatch}),
 * the classification ({@link OutcomeClassifier}) and the finishing.
 */
interface PipelineExecutor {

    /** The pipeline's {@code executor} value this implementation runs. */
    String id();

    /**
     * Resolves what the run needs before anything starts.
     *
     * @throws RunFailure (type configuration) when it cannot run
     */
    PreparedRun prepare(RunPlan plan);

    /**
     * Makes sure the plan's executables exist and may run, once the run log is open: plugins with
     * a {@code pip_url} that this replica has not installed are installed first (a stage of the
     * run), and the returned plan names the executables inside their virtual environments.
     *
     * @throws RunFailure (configuration or installation) when an executable is missing, not
     *     allowed, or cannot be installed
     */
    default RunPlan ensureExecutables(RunPlan plan, ActiveRun ctx, PreparedRun prepared) {
        return plan;
    }

    /**
     * Executes the run on the calling thread until its processes have ended and its state is
     * stored, honouring the context's stop requests and deadline.
     *
     * @param exitCodes receives each process's exit code, by component
     * @return the outcome; warnings go to {@code ctx.warnings}, stages to {@code ctx.stage}
     * @throws RunFailure when a process cannot start or a step fails before the run proper
     * @throws Exception on an unexpected error (recorded as internal or resource)
     */
    Outcome execute(RunPlan plan, ActiveRun ctx, PreparedRun prepared, Map<String, Integer> exitCodes) throws Exception;
}
