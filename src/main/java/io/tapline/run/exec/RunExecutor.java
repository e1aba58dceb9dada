package io.tapline.run.exec;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunFailure;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPreparation;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.run.Run;
import io.tapline.run.RunLog;
import io.tapline.run.RunLogs;
import io.tapline.run.RunRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.ActivateRequestContext;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Executes claimed runs on this replica, in stages: loads the run's plan (a snapshot of the
 * pipeline and its plugins), hands it to the executor the pipeline chose ({@link PipelineExecutor}:
 * {@code singer}, {@code meltano} or {@code kubernetes}, which hands the run to a Job and records
 * nothing itself), which prepares it ({@link RunPreparation}) before the run log
 * opens and then executes it under {@link ProcessWatch}; registers it for heartbeat, cancel,
 * fencing and shutdown ({@link ActiveRuns}); and records the outcome through the one end path
 * ({@link RunFinisher}). Failures that stop a run early ({@link RunFailure}) and unexpected errors
 * are classified here once ({@link OutcomeClassifier#internal}).
 *
 * <p>While a run executes, its thread and helper threads carry the MDC keys {@value #MDC_RUN_ID},
 * {@value #MDC_PIPELINE} and {@value #MDC_STATE_ID}, so every log line about it (JSON in
 * production) names the run.
 */
@ApplicationScoped
@Startup
public class RunExecutor {

    private static final Logger LOG = Logger.getLogger(RunExecutor.class);
    /** MDC key of the run id while a run executes. */
    public static final String MDC_RUN_ID = "runId";
    /** MDC key of the pipeline name while a run executes. */
    public static final String MDC_PIPELINE = "pipeline";
    /** MDC key of the run's state ID while a run executes. */
    public static final String MDC_STATE_ID = "stateId";
    /** The reason recorded on runs stopped because the service shuts down. */
    public static final String SHUTDOWN_REASON = "service shutdown";
    /**
     * Time allowed on service shutdown, after the connectors' grace, to store the last state and
     * mark the runs.
     */
    static final Duration SHUTDOWN_MARGIN = Duration.ofSeconds(20);
    /**
     * How long the shutdown waits, after its deadline, for run threads to leave: they give up their
     * database writes at the deadline, and one attempt in progress may still take this long.
     */
    static final Duration RUN_THREAD_JOIN = Duration.ofSeconds(10);

    private final RunRepository runs;
    private final PipelineRepository pipelines;
    private final io.tapline.plugin.PluginEnvironmentRepository overlays;
    private final RunLogs logs;
    private final InstanceId instance;
    private final TaplineConfig config;
    private final Clock clock;
    private final ActiveRuns active;
    private final ProcessWatch watch;
    private final RunFinisher finisher;
    private final RunPreparation preparation;
    private final Map<String, PipelineExecutor> executors = new LinkedHashMap<>();

    public RunExecutor(RunRepository runs, PipelineRepository pipelines, RunLogs logs, InstanceId instance,
                       TaplineConfig config, Clock clock, ActiveRuns active, ProcessWatch watch, RunFinisher finisher,
                       RunPreparation preparation, SingerExecutor singer, MeltanoExecutor meltano, KubernetesExecutor kubernetes,
                       io.tapline.plugin.PluginEnvironmentRepository overlays) {
        this.overlays = overlays;
        this.runs = runs;
        this.pipelines = pipelines;
        this.logs = logs;
        this.instance = instance;
        this.config = config;
        this.clock = clock;
        this.active = active;
        this.watch = watch;
        this.finisher = finisher;
        this.preparation = preparation;
        for (PipelineExecutor e : List.of(singer, meltano, kubernetes)) {
            executors.put(e.id(), e);
        }
    }

    /** Ids of the runs this replica is executing (or finishing). */
    public Set<UUID> running() {
        return active.ids();
    }

    /**
     * Executes a run that this replica has claimed (status RUNNING, owner = this instance), on the
     * calling thread, until it reaches a terminal status.
     */
    @ActivateRequestContext
    public void execute(UUID runId) {
        execute(runId, null);
    }

    /**
     * Executes a claimed run as {@link #execute(UUID)} does; in runner mode, with the prepared run
     * that the claiming replica put into the run's Secret ({@code --prepared}), instead of
     * resolving and decrypting it here.
     *
     * @param preparedFile the prepared run ({@link PreparedRuns}), or null to prepare it here
     */
    @ActivateRequestContext
    public void execute(UUID runId, java.nio.file.Path preparedFile) {
        active.enter(runId);
        MDC.put(MDC_RUN_ID, runId.toString());
        try {
            executeRun(runId, preparedFile);
        } finally {
            active.leave(runId);
            MDC.remove(MDC_RUN_ID);
            MDC.remove(MDC_PIPELINE);
            MDC.remove(MDC_STATE_ID);
        }
    }

    private void executeRun(UUID runId, java.nio.file.Path preparedFile) {
        RunPlan plan;
        Run run;
        String pipelineExecutor;
        try {
            Object[] loaded = QuarkusTransaction.requiringNew().call(() -> {
                Run r = runs.findById(runId);
                Pipeline p = r == null || r.pipelineId == null ? null : pipelines.findById(r.pipelineId);
                return new Object[] {r, p == null ? null : RunPlans.of(r, p, plugin ->
                        overlays.find(plugin.id, p.environment).orElse(null)), p == null ? null : p.executor};
            });
            run = (Run) loaded[0];
            plan = (RunPlan) loaded[1];
            pipelineExecutor = (String) loaded[2];
        } catch (RuntimeException e) {
            LOG.errorf(e, "Run %s could not be loaded", runId);
            finisher.finish(runId, "unknown", null, Outcome.failed(FailedComponent.SERVICE, FailureType.INTERNAL,
                    "the run could not be loaded: " + e.getMessage()), Map.of());
            return;
        }
        if (run == null) {
            return;
        }
        if (run.pipelineName != null) {
            MDC.put(MDC_PIPELINE, run.pipelineName);
        }
        if (plan == null) {
            finisher.finish(runId, run.pipelineName, null, Outcome.failed(FailedComponent.SERVICE,
                    FailureType.CONFIGURATION, "the pipeline was deleted"), Map.of());
            return;
        }
        MDC.put(MDC_PIPELINE, plan.pipeline());
        MDC.put(MDC_STATE_ID, plan.stateId());
        PipelineExecutor executor = select(plan, pipelineExecutor);
        PreparedRun prepared;
        try {
            prepared = preparedFile == null ? executor.prepare(plan)
                    : PreparedRuns.read(preparedFile, preparation.inherited());
        } catch (RunFailure f) {
            ActiveRun ctx = open(plan, List.of(), null, run.lastHeartbeatAt);
            if (ctx != null) {
                ctx.log.line("service", "run failed before start: " + f.getMessage());
            }
            finisher.finish(runId, plan.pipeline(), ctx, Outcome.of(f), Map.of());
            return;
        }
        ActiveRun ctx = open(plan, prepared.secrets(), plan.timeoutSeconds(), run.lastHeartbeatAt);
        if (ctx == null) {
            return;
        }
        ctx.log.line("service", "run " + runId + " of pipeline '" + plan.pipeline() + "' (state ID '" + plan.stateId()
                + "') started on " + instance.get() + (executor instanceof MeltanoExecutor ? " through meltano run" : ""));
        LOG.infof("Run %s of pipeline '%s' started (state ID '%s', executor %s)", runId, plan.pipeline(), plan.stateId(),
                executor.id());
        Map<String, Integer> exitCodes = new LinkedHashMap<>();
        Outcome outcome;
        try {
            ActiveRun.Stop early = ctx.stop.get();
            if (early != null) {
                ctx.log.line("service", "stopped before any process started: " + early.message());
                outcome = OutcomeClassifier.stopped(early, FailedComponent.SERVICE, "");
            } else {
                RunPlan ready = executor.ensureExecutables(plan, ctx, prepared);
                outcome = executor.execute(ready, ctx, prepared, exitCodes);
            }
        } catch (RunFailure f) {
            ctx.log.line("service", f.getMessage());
            watch.stopAll(ctx);
            outcome = Outcome.of(f);
        } catch (Throwable t) {
            LOG.errorf(t, "Run %s failed in the service", runId);
            ctx.log.line("service", "internal error: " + RunThreads.rootMessage(t));
            watch.stopAll(ctx);
            outcome = OutcomeClassifier.internal(t);
        }
        if (outcome.status() == KubernetesExecutor.HANDED_OVER) {
            // Another process (the Job's runner) records the run from here; this replica forgets it.
            ctx.log.flush();
            active.remove(runId);
            logs.close(runId);
            LOG.infof("Run %s: %s", runId, outcome.reason());
            return;
        }
        finisher.finish(runId, plan.pipeline(), ctx, outcome, exitCodes);
    }

    /**
     * The executor of a plan: the pipeline's ({@code singer}, {@code meltano}, {@code kubernetes});
     * {@code singer} runs go to {@code kubernetes} when {@code tapline.runner.default-executor} says
     * so. In runner mode ({@code tapline.runner.single-run}) this process is the Job's pod, so
     * {@code kubernetes} runs execute here on the Singer engine.
     */
    private PipelineExecutor select(RunPlan plan, String pipelineExecutor) {
        String id = KubernetesExecutor.ID.equals(pipelineExecutor) ? KubernetesExecutor.ID : RunPlans.executor(plan);
        if (SingerExecutor.ID.equals(id) && KubernetesExecutor.ID.equals(config.runner().defaultExecutor())) {
            id = KubernetesExecutor.ID;
        }
        if (KubernetesExecutor.ID.equals(id) && config.runner().singleRun()) {
            id = SingerExecutor.ID;
        }
        return executors.getOrDefault(id, executors.get(SingerExecutor.ID));
    }

    /**
     * Opens the run's log and registers the run; when the log cannot be opened, the run is
     * finished (resource or internal failure) and null returned.
     */
    private ActiveRun open(RunPlan plan, List<String> secrets, Integer timeoutSeconds,
                           java.time.OffsetDateTime lastHeartbeat) {
        RunLog log;
        try {
            log = logs.open(plan.runId(), secrets);
        } catch (IOException | RuntimeException e) {
            LOG.errorf("The log of run %s could not be opened: %s", plan.runId(), e.getMessage());
            Outcome o = OutcomeClassifier.internal(e);
            finisher.finish(plan.runId(), plan.pipeline(), null, new Outcome(o.status(), o.component(), o.type(),
                    "the run log could not be opened: " + RunThreads.rootMessage(e)), Map.of());
            return null;
        }
        ActiveRun ctx = new ActiveRun(plan.runId(), log, clock.instant(), timeoutSeconds);
        if (lastHeartbeat != null && lastHeartbeat.toInstant().isBefore(ctx.lastHeartbeat)) {
            // the claim's heartbeat, before preparing: the fence counts from what another replica sees
            ctx.lastHeartbeat = lastHeartbeat.toInstant();
        }
        active.register(ctx);
        return ctx;
    }

    /**
     * Refreshes the heartbeat, log tail and live counts of this replica's runs, picks up cancel
     * requests, and fences runs whose heartbeat could not be stored ({@link ActiveRuns#heartbeat}).
     */
    public void heartbeat() {
        active.heartbeat();
    }

    /** Asks a local run to stop (cancel); true when this replica runs it. */
    public boolean cancelLocal(UUID id, String reason) {
        return active.cancelLocal(id, reason);
    }

    /**
     * Stops every run of this replica because the service is shutting down: SIGTERM to their
     * processes, SIGKILL after {@code tapline.runner.shutdown-grace} (default: the terminate
     * grace), last acknowledged state stored, runs marked CANCELLED with the reason
     * {@value #SHUTDOWN_REASON}. A run that reaches {@link #execute} from now on ends the same way
     * without starting any process. Returns when every run has ended, or after the grace plus 20 s
     * for the database writes, when the run threads give up their writes, plus at most
     * {@link #RUN_THREAD_JOIN} for them to leave, so that no run thread uses the application after
     * it stopped. A run whose end could not be recorded (the database is unreachable) is left to
     * the heartbeat reaper of another replica; all such runs are reported in one WARN line.
     *
     * @return true when every run's end was recorded
     */
    public boolean shutdown() {
        long deadline = System.nanoTime() + watch.shutdownGrace().plus(SHUTDOWN_MARGIN).toNanos();
        Set<UUID> stopping = active.executing();
        if (!stopping.isEmpty()) {
            LOG.infof("Service shutdown: stopping %d run(s) %s; connectors get %d s after SIGTERM", stopping.size(),
                    stopping, watch.shutdownGrace().toSeconds());
        }
        active.shutdown(deadline);
        if (!awaitIdle(deadline)) {
            awaitIdle(System.nanoTime() + RUN_THREAD_JOIN.toNanos());
        }
        Set<UUID> unrecorded = new java.util.TreeSet<>(active.endsGivenUp());
        unrecorded.addAll(active.executing());
        if (unrecorded.isEmpty()) {
            return true;
        }
        LOG.warnf("Service stopped before the end of run(s) %s could be recorded (the database could not be reached);"
                + " the heartbeat reaper of another replica fails them after tapline.runner.heartbeat-timeout"
                + " (heartbeat lost), and their retry policy applies", unrecorded);
        return false;
    }

    /**
     * Waits until no run is inside {@link #execute} or {@code deadline} ({@link System#nanoTime()})
     * has passed; a run that registered late (claimed just before the shutdown) is asked to stop too.
     *
     * @return true when every run has ended
     */
    public boolean awaitIdle(long deadline) {
        long nextHeartbeat = System.nanoTime();
        while (!active.executing().isEmpty() && System.nanoTime() < deadline) {
            if (active.shuttingDown()) {
                active.stopAllForShutdown();
            }
            // Keep the runs' heartbeat fresh while connectors flush, whether or not the scheduler
            // still fires, so that no other replica reaps them meanwhile.
            if (System.nanoTime() - nextHeartbeat >= 0) {
                active.heartbeat();
                nextHeartbeat = System.nanoTime() + config.runner().heartbeatInterval().toNanos();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return active.executing().isEmpty();
            }
        }
        return active.executing().isEmpty();
    }

    /** The {@link System#nanoTime()} by which {@link #shutdown()} gives up waiting; 0 before it. */
    public long shutdownDeadline() {
        return active.shutdownDeadline();
    }
}
