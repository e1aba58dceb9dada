package io.tapline.run.exec;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunFailure;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPreparation;
import io.tapline.run.RunRepository;
import io.tapline.run.RunStatus;
import io.tapline.run.kubernetes.JobWatcher;
import io.tapline.run.kubernetes.RunJobSpec;
import io.tapline.run.kubernetes.RunJobs;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Map;

/**
 * The {@code kubernetes} executor: the run executes in its own Kubernetes Job, whose pod runs this
 * build in runner mode ({@code run <run-id>}) on the Singer engine. This replica prepares the run
 * (references resolved, secrets decrypted, for the per-run Secret), creates the Job and its
 * Secret ({@link RunJobs}), and hands the run over with a guarded update of its owner (this
 * instance → {@code job:<job-name>}); the runner takes it from the Job with another
 * ({@code job:<job-name>} → its own instance id), and records the run's end itself. The returned
 * outcome is "handed over" ({@link #HANDED_OVER}): nothing is finished here, and a shutdown or
 * rolling deploy of this replica does not touch the run.
 */
@ApplicationScoped
public class KubernetesExecutor implements PipelineExecutor {

    /** The {@code executor} value. */
    public static final String ID = "kubernetes";
    /** Outcome status of a run handed to another process, which records its end. */
    static final RunStatus HANDED_OVER = RunStatus.RUNNING;

    private final TaplineConfig config;
    private final RunPreparation preparation;
    private final RunJobs jobs;
    private final RunRepository runs;
    private final InstanceId instance;
    private final Clock clock;

    public KubernetesExecutor(TaplineConfig config, RunPreparation preparation, RunJobs jobs, RunRepository runs,
                              InstanceId instance, Clock clock) {
        this.config = config;
        this.preparation = preparation;
        this.jobs = jobs;
        this.runs = runs;
        this.instance = instance;
        this.clock = clock;
    }

    @Override
    public String id() {
        return ID;
    }

    /**
     * Resolves the run's configs and secrets here (the pod needs no encryption key).
     *
     * @throws RunFailure (configuration) as the singer executor, or when {@code tapline.kubernetes.image} is unset
     */
    @Override
    public PreparedRun prepare(RunPlan plan) {
        if (config.kubernetes().image().isEmpty()) {
            throw new RunFailure(FailedComponent.SERVICE, FailureType.CONFIGURATION,
                    "the kubernetes executor needs tapline.kubernetes.image (the runner image)");
        }
        return preparation.prepare(plan, true);
    }

    /**
     * Creates the Job and hands the run to it.
     *
     * @return {@link #HANDED_OVER}, or the stop that arrived before the Job was created
     * @throws RunFailure (resource) when the Kubernetes API refuses the Job or cannot be reached
     */
    @Override
    public Outcome execute(RunPlan plan, ActiveRun ctx, PreparedRun prepared, Map<String, Integer> exitCodes) {
        String image = config.kubernetes().image().orElseThrow();
        RunJobSpec.Launch launch = new RunJobSpec.Launch(plan.runId(), plan.pipeline(), plan.stateId(),
                plan.timeoutSeconds());
        String job;
        try {
            job = jobs.launch(launch, image, config.runner().terminateGrace().toSeconds(), PreparedRuns.write(prepared));
        } catch (RuntimeException e) {
            throw new RunFailure(FailedComponent.SERVICE, FailureType.RESOURCE,
                    "the Kubernetes Job could not be created: " + RunThreads.rootMessage(e));
        }
        boolean handed = QuarkusTransaction.requiringNew().call(() -> runs.handOver(plan.runId(), instance.get(),
                JobWatcher.jobOwner(plan.runId()), OffsetDateTime.now(clock)));
        if (!handed) {
            jobs.delete(plan.runId());
            ctx.log.line("service", "the run ended elsewhere while its Job was created; Job " + job + " deleted");
            return Outcome.failed(FailedComponent.SERVICE, FailureType.LOST_INSTANCE, "the run ended elsewhere");
        }
        ctx.log.line("service", "handed over to Kubernetes Job " + jobs.namespace() + "/" + job + " (image " + image
                + "); the runner in its pod records the run from here");
        return new Outcome(HANDED_OVER, null, null, "running in Kubernetes Job " + job);
    }
}
