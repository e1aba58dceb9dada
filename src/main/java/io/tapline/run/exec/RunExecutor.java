package io.tapline.run.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.common.security.SecretCipher;
import io.tapline.common.json.Jsons;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.ProcessSpec;
import io.tapline.connector.ProcessSupervisor;
import io.tapline.connector.Termination;
import io.tapline.connector.MessageCounts;
import io.tapline.connector.Relay;
import io.tapline.connector.RelayFailure;
import io.tapline.connector.RelayResult;
import io.tapline.connector.StreamCounts;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.plugin.PluginMapper;
import io.tapline.plugin.PluginSecrets;
import io.tapline.run.CatalogRules;
import io.tapline.run.FailedComponent;
import io.tapline.run.InstanceId;
import io.tapline.run.Run;
import io.tapline.run.RunLog;
import io.tapline.run.RunLogs;
import io.tapline.run.RunRepository;
import io.tapline.run.RunStatus;
import io.tapline.run.RunMetrics;
import io.tapline.state.MeltanoState;
import io.tapline.state.PythonJson;
import io.tapline.state.StateConflictException;
import io.tapline.state.StateService;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.ActivateRequestContext;
import jakarta.enterprise.event.Event;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Executes claimed runs on this replica: prepares the private run directory (config with
 * references resolved, catalog with the selection applied, the tap's state file exactly as Meltano
 * writes it), starts the target, mappers and tap without a shell, relays the tap's messages to the
 * target, stores the target's state lines (meltano-state.md §3; coalesced, one transaction each),
 * watches timeouts and cancel requests, runs the transform step after a successful extract-load,
 * and records the outcome with a guarded status update.
 *
 * <p>While a run executes, its thread and helper threads carry the MDC keys {@value #MDC_RUN_ID},
 * {@value #MDC_PIPELINE} and {@value #MDC_STATE_ID}, so every log line about it (JSON in
 * production) names the run. The writes at the end of a run (final state, counts, outcome) are
 * retried for {@code tapline.runner.state-store-retry} while the database is unreachable.
 *
 * <p>Sensitive values stored encrypted are
 * decrypted here, after references are resolved (so they are used literally), and added to the
 * values the run log masks; a run whose executables lie outside
 * {@code tapline.security.executable-dirs} fails before anything starts.
 */
@ApplicationScoped
@Startup
public class RunExecutor {

    private static final Logger LOG = Logger.getLogger(RunExecutor.class);
    private static final Duration POLL = Duration.ofMillis(100);
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
    private static final Duration RETRY_PAUSE_MAX = Duration.ofSeconds(2);

    /** Fired (no transaction) when a run this replica executed reached a terminal status. */
    public record RunFinished(UUID runId, RunStatus status) {
    }

    private final RunRepository runs;
    private final PipelineRepository pipelines;
    private final StateService states;
    private final RunLogs logs;
    private final InstanceId instance;
    private final TaplineConfig config;
    private final Clock clock;
    private final RunMetrics metrics;
    private final Event<RunFinished> finished;
    private final SecretCipher cipher;
    private final ExecutablePolicy executables;
    private final Map<UUID, ActiveRun> active = new ConcurrentHashMap<>();
    /** Runs inside {@link #execute}, from the first line (before their processes exist) to the last. */
    private final Set<UUID> executing = ConcurrentHashMap.newKeySet();
    private volatile boolean shuttingDown;
    private volatile long shutdownDeadline;
    private volatile boolean heartbeatFailing;

    /** Runs {@code executor: meltano} pipelines through {@code meltano run}. */
    @jakarta.inject.Inject
    MeltanoCliRunner meltanoCli;

    /** The shared Meltano state directory: an outside change is imported before each run. */
    @jakarta.inject.Inject
    io.tapline.state.StateMirror mirror;

    public RunExecutor(RunRepository runs, PipelineRepository pipelines, StateService states, RunLogs logs,
                       InstanceId instance, TaplineConfig config, Clock clock, RunMetrics metrics,
                       Event<RunFinished> finished, SecretCipher cipher, ExecutablePolicy executables) {
        this.cipher = cipher;
        this.executables = executables;
        this.runs = runs;
        this.pipelines = pipelines;
        this.states = states;
        this.logs = logs;
        this.instance = instance;
        this.config = config;
        this.clock = clock;
        this.metrics = metrics;
        this.finished = finished;
    }

    @PostConstruct
    void registerGauges() {
        metrics.activeRuns(active::size);
    }

    /** Ids of the runs this replica is executing. */
    public Set<UUID> running() {
        return Set.copyOf(active.keySet());
    }

    /**
     * Executes a run that this replica has claimed (status RUNNING, owner = this instance), on the
     * calling thread, until it reaches a terminal status.
     */
    @ActivateRequestContext
    public void execute(UUID runId) {
        executing.add(runId);
        MDC.put(MDC_RUN_ID, runId.toString());
        try {
            executeRun(runId);
        } finally {
            executing.remove(runId);
            MDC.remove(MDC_RUN_ID);
            MDC.remove(MDC_PIPELINE);
            MDC.remove(MDC_STATE_ID);
        }
    }

    private void executeRun(UUID runId) {
        RunPlan plan;
        Run run;
        try {
            Object[] loaded = QuarkusTransaction.requiringNew().call(() -> {
                Run r = runs.findById(runId);
                Pipeline p = r == null || r.pipelineId == null ? null : pipelines.findById(r.pipelineId);
                return new Object[] {r, p == null ? null : RunPlan.of(r, p)};
            });
            run = (Run) loaded[0];
            plan = (RunPlan) loaded[1];
        } catch (RuntimeException e) {
            LOG.errorf(e, "Run %s could not be loaded", runId);
            finish(runId, "unknown", null, RunStatus.FAILED, FailedComponent.SERVICE, "the run could not be loaded: "
                    + e.getMessage(), Map.of(), List.of());
            return;
        }
        if (run == null) {
            return;
        }
        if (run.pipelineName != null) {
            MDC.put(MDC_PIPELINE, run.pipelineName);
        }
        if (plan == null) {
            finish(runId, run.pipelineName, null, RunStatus.FAILED, FailedComponent.SERVICE, "the pipeline was deleted", Map.of(), List.of());
            return;
        }
        MDC.put(MDC_PIPELINE, plan.pipeline());
        MDC.put(MDC_STATE_ID, plan.stateId());
        if (plan.meltano() != null) {
            executeMeltano(runId, plan);
            return;
        }
        Outcome outcome;
        ActiveRun ctx = null;
        RunDirectory dir = null;
        try {
            Map<String, String> runEnv = new LinkedHashMap<>(plan.env());
            ConfigResolver resolver = new ConfigResolver(System::getenv, runEnv,
                    config.secrets().dir().orElse(null));
            Prepared prepared;
            List<String> secrets = new ArrayList<>();
            try {
                prepared = prepareConfigs(plan, resolver);
                checkExecutables(plan, prepared);
                secrets.addAll(resolver.secrets());
                secrets.addAll(prepared.sensitiveValues);
            } catch (ConfigResolver.ConfigReferenceException e) {
                RunLog log = logs.open(runId, List.of());
                log.line("service", "run failed before start: " + e.getMessage());
                logs.close(runId);
                finish(runId, plan.pipeline(), null, RunStatus.FAILED, FailedComponent.SERVICE, e.getMessage(), Map.of(), List.of());
                return;
            }
            RunLog log = logs.open(runId, secrets);
            ctx = new ActiveRun(runId, log, clock.instant());
            active.put(runId, ctx);
            if (shuttingDown) {
                ctx.requestStop(ActiveRun.StopReason.SHUTDOWN, SHUTDOWN_REASON);
            }
            log.line("service", "run " + runId + " of pipeline '" + plan.pipeline() + "' (state ID '" + plan.stateId()
                    + "') started on " + instance.get());
            LOG.infof("Run %s of pipeline '%s' started (state ID '%s')", runId, plan.pipeline(), plan.stateId());
            dir = RunDirectory.create(config.runner().runsDir(), runId);
            outcome = runAll(plan, ctx, dir, prepared);
        } catch (ComponentFailed e) {
            ctx.log.line("service", e.getMessage());
            stopProcesses(ctx);
            outcome = new Outcome(RunStatus.FAILED, e.component, e.getMessage(), Map.of(), List.of());
        } catch (Throwable t) {
            LOG.errorf(t, "Run %s failed in the service", runId);
            if (ctx != null) {
                ctx.log.line("service", "internal error: " + rootMessage(t));
                stopProcesses(ctx);
            }
            outcome = new Outcome(RunStatus.FAILED, FailedComponent.SERVICE, "internal error: " + rootMessage(t),
                    Map.of(), List.of());
        } finally {
            if (dir != null) {
                try {
                    dir.close();
                } catch (IOException e) {
                    LOG.warnf("Run directory %s could not be deleted: %s", dir.path(), e.getMessage());
                }
            }
        }
        finish(runId, plan.pipeline(), ctx, outcome.status, outcome.component, outcome.reason, outcome.exitCodes, outcome.warnings);
    }

    /**
     * Runs a pipeline through {@code meltano run} ({@link MeltanoCliRunner}) with this executor's
     * log, process supervision (cancel, timeout, shutdown through {@link ActiveRun}) and finish path.
     */
    private void executeMeltano(UUID runId, RunPlan plan) {
        ActiveRun ctx = null;
        MeltanoCliRunner.Result result;
        try {
            MeltanoCliRunner.Prepared prepared;
            try {
                prepared = meltanoCli.prepare(plan);
            } catch (ConfigResolver.ConfigReferenceException e) {
                RunLog log = logs.open(runId, List.of());
                log.line("service", "run failed before start: " + e.getMessage());
                logs.close(runId);
                finish(runId, plan.pipeline(), null, RunStatus.FAILED, FailedComponent.SERVICE, e.getMessage(),
                        Map.of(), List.of());
                return;
            }
            RunLog log = logs.open(runId, prepared.secrets());
            ctx = new ActiveRun(runId, log, clock.instant());
            active.put(runId, ctx);
            log.line("service", "run " + runId + " of pipeline '" + plan.pipeline() + "' (state ID '" + plan.stateId()
                    + "') started on " + instance.get() + " through meltano run");
            result = meltanoCli.run(plan, ctx, prepared);
        } catch (Throwable t) {
            LOG.errorf(t, "Run %s failed in the service", runId);
            if (ctx != null) {
                ctx.log.line("service", "internal error: " + t);
                stopProcesses(ctx);
            }
            result = new MeltanoCliRunner.Result(RunStatus.FAILED, FailedComponent.SERVICE, "internal error: "
                    + t.getMessage(), Map.of(), List.of());
        }
        finish(runId, plan.pipeline(), ctx, result.status(), result.component(), result.reason(), result.exitCodes(),
                result.warnings());
    }

    /** The result of a run. */
    private record Outcome(RunStatus status, FailedComponent component, String reason, Map<String, Integer> exitCodes,
                           List<String> warnings) {
    }

    /** Config JSON per component, resolved. */
    private record Prepared(ObjectNode extractor, List<ObjectNode> mappers, ObjectNode loader, ObjectNode transform,
                            Map<String, Map<String, String>> env, List<String> sensitiveValues) {
    }

    private Prepared prepareConfigs(RunPlan plan, ConfigResolver resolver) {
        List<String> sensitive = new ArrayList<>();
        Map<String, Map<String, String>> env = new LinkedHashMap<>();
        ObjectNode ex = resolveComponent(plan.extractor(), resolver, env, sensitive);
        List<ObjectNode> maps = new ArrayList<>();
        for (RunPlan.Component m : plan.mappers()) {
            maps.add(resolveComponent(m, resolver, env, sensitive));
        }
        ObjectNode lo = resolveComponent(plan.loader(), resolver, env, sensitive);
        ObjectNode tr = plan.transform() == null ? null : resolveComponent(plan.transform(), resolver, env, sensitive);
        Map<String, String> pipelineEnv = new LinkedHashMap<>();
        plan.env().forEach((k, v) -> pipelineEnv.put(k, resolver.resolveString(v, "pipeline env " + k)));
        env.put("", pipelineEnv);
        return new Prepared(ex, maps, lo, tr, env, sensitive);
    }

    /**
     * Fails the run (as a reference problem: before anything starts) when an executable is not
     * allowed, looked up as the process supervisor will: on the process environment's PATH.
     */
    private void checkExecutables(RunPlan plan, Prepared prepared) {
        Path workDir = config.runner().runsDir().resolve(plan.runId().toString()).toAbsolutePath();
        List<Map.Entry<String, RunPlan.Component>> all = new ArrayList<>();
        all.add(Map.entry("extractor", plan.extractor()));
        plan.mappers().forEach(m -> all.add(Map.entry("mapper:" + m.name(), m)));
        all.add(Map.entry("loader", plan.loader()));
        if (plan.transform() != null) {
            all.add(Map.entry("transform", plan.transform()));
        }
        for (Map.Entry<String, RunPlan.Component> e : all) {
            Optional<String> reason = executables.violation(e.getKey(), e.getValue().executable(),
                    env(prepared, e.getValue().name()).get("PATH"), workDir);
            if (reason.isPresent()) {
                throw new ConfigResolver.ConfigReferenceException(reason.get());
            }
        }
    }

    private ObjectNode resolveComponent(RunPlan.Component c, ConfigResolver resolver,
                                        Map<String, Map<String, String>> env, List<String> sensitive) {
        String where = c.type() + "/" + c.name();
        ObjectNode resolved = resolver.resolve(c.config(), where + " config");
        for (String s : c.sensitive()) {
            JsonNode v = PluginMapper.at(resolved, s);
            if (v != null && v.isTextual() && SecretCipher.isSealed(v.asText())) {
                v = open(v.asText(), where + " config." + s);
                PluginMapper.set(resolved, s, v);
            }
            collectSecrets(v, sensitive);
        }
        Map<String, String> e = new LinkedHashMap<>();
        c.env().forEach((k, v) -> {
            String value = resolver.resolveString(v, where + " env " + k);
            if (c.sensitive().contains(k) && SecretCipher.isSealed(value)) {
                JsonNode opened = open(value, where + " env " + k);
                value = opened.isTextual() ? opened.asText() : Jsons.write(opened);
            }
            e.put(k, value);
            if (c.sensitive().contains(k)) {
                sensitive.add(value);
            }
        });
        env.put(c.name(), e);
        return resolved;
    }

    /** Decrypts a sealed sensitive value; a failure names the setting and key id, never a value. */
    private JsonNode open(String sealed, String setting) {
        try {
            return PluginSecrets.open(sealed, cipher);
        } catch (SecretCipher.SecretException e) {
            throw new ConfigResolver.ConfigReferenceException(setting + " " + e.getMessage());
        }
    }

    /** Adds every scalar inside a sensitive value to the values the run log masks. */
    private static void collectSecrets(JsonNode v, List<String> sensitive) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return;
        }
        if (v.isValueNode()) {
            sensitive.add(v.asText());
        } else {
            v.elements().forEachRemaining(x -> collectSecrets(x, sensitive));
            if (v.isContainerNode()) {
                sensitive.add(Jsons.write(v));
            }
        }
    }

    private Outcome runAll(RunPlan plan, ActiveRun ctx, RunDirectory dir, Prepared prepared) throws Exception {
        RunLog log = ctx.log;
        List<String> warnings = ctx.warnings;
        Map<String, Integer> exitCodes = new LinkedHashMap<>();

        // State before, and the tap's state file (meltano-state.md §1a); an outside change of the
        // shared Meltano directory is imported first.
        mirror.reconcile(plan.stateId()).ifPresent(w -> {
            warnings.add(w);
            log.line("service", w);
        });
        StateService.Snapshot before = states.get(plan.stateId());
        String stateBefore = merged(before.state());
        QuarkusTransaction.requiringNew().run(() -> runs.getEntityManager().createNativeQuery(
                        "update pipeline_run set state_before = :s where id = :id")
                .setParameter("s", stateBefore).setParameter("id", plan.runId()).executeUpdate());

        Path extractorConfig = dir.write("extractor.config.json", Jsons.write(prepared.extractor()));
        List<String> tapCmd = command(plan.extractor(), extractorConfig);
        Optional<Path> catalog = catalog(plan, dir, extractorConfig, prepared, log);
        if (catalog.isPresent()) {
            tapCmd.add(plan.extractor().can("properties") && !plan.extractor().can("catalog") ? "--properties" : "--catalog");
            tapCmd.add(catalog.get().toString());
        }
        if (plan.extractor().can("state") && !plan.fullRefresh()) {
            Optional<String> stateFile = tapState(before.state(), plan.fullRefreshStreams(), log);
            if (stateFile.isPresent()) {
                tapCmd.add("--state");
                tapCmd.add(dir.write("state.json", stateFile.get()).toString());
            }
        } else if (plan.fullRefresh()) {
            log.line("service", "full refresh: the extractor gets no state");
        } else {
            log.line("service", "the extractor does not declare the 'state' capability: no state is passed");
        }

        ActiveRun.Stop early = ctx.stop.get();
        if (early != null) {
            log.line("service", "stopped before any process started: " + early.message());
            RunStatus s = early.reason() == ActiveRun.StopReason.TIMED_OUT ? RunStatus.FAILED : RunStatus.CANCELLED;
            return new Outcome(s, s == RunStatus.FAILED ? FailedComponent.SERVICE : null, early.message(), exitCodes,
                    warnings);
        }

        // Start target first, then mappers, then the tap: each consumer is ready before its producer.
        ConnectorProcess target = start(ctx, "loader", command(plan.loader(),
                dir.write("loader.config.json", Jsons.write(prepared.loader()))), dir, prepared, plan.loader().name());
        List<ConnectorProcess> mappers = new ArrayList<>();
        for (int i = 0; i < plan.mappers().size(); i++) {
            RunPlan.Component m = plan.mappers().get(i);
            mappers.add(start(ctx, "mapper:" + m.name(), command(m,
                    dir.write("mapper-" + i + ".config.json", Jsons.write(prepared.mappers().get(i)))), dir, prepared,
                    m.name()));
        }
        ConnectorProcess tap = start(ctx, "extractor", tapCmd, dir, prepared, plan.extractor().name());

        StateCheckpointer checkpointer = new StateCheckpointer(plan.completeWrites());
        ctx.checkpointer = checkpointer;
        Relay relay = new Relay((int) Math.min(config.runner().maxLineLength(), Relay.MAX_LINE_LENGTH_LIMIT));
        ctx.relay = relay;

        OutputStream firstIn = mappers.isEmpty() ? target.stdin() : mappers.get(0).stdin();
        RelayResult[] relayResult = new RelayResult[1];
        Thread relayThread = thread("relay-" + plan.runId(), () -> {
            try {
                relayResult[0] = relay.relay(tap.stdout(), firstIn, io.tapline.connector.RelayListener.NONE);
            } finally {
                closeQuietly(firstIn);
            }
        });
        List<Thread> pumps = new ArrayList<>();
        for (int i = 0; i < mappers.size(); i++) {
            InputStream from = mappers.get(i).stdout();
            OutputStream to = i + 1 < mappers.size() ? mappers.get(i + 1).stdin() : target.stdin();
            pumps.add(thread("mapper-pump-" + i, () -> pump(from, to)));
        }
        Thread stateReader = thread("state-reader-" + plan.runId(), () -> readState(target.stdout(), checkpointer, log));

        // Watch: persist state, enforce timeout, cancel and ownership, until the target has ended.
        Instant deadline = plan.timeoutSeconds() == null ? null : ctx.startedAt.plusSeconds(plan.timeoutSeconds());
        Instant nextPersist = clock.instant().plus(config.runner().statePersistInterval());
        boolean relayFailureHandled = false;
        while (true) {
            boolean targetDone = waitFor(target, POLL) && !stateReader.isAlive();
            if (!plan.onSuccess() && (clock.instant().isAfter(nextPersist) || targetDone)) {
                persist(plan, ctx, checkpointer);
                nextPersist = clock.instant().plus(config.runner().statePersistInterval());
            }
            if (targetDone) {
                break;
            }
            if (deadline != null && clock.instant().isAfter(deadline)) {
                ctx.requestStop(ActiveRun.StopReason.TIMED_OUT, "timed out after " + plan.timeoutSeconds() + " s");
            }
            if (ctx.stop.get() != null && !ctx.stopping) {
                ctx.stopping = true;
                log.line("service", "stopping: " + ctx.stop.get().message() + "; SIGTERM to every process, SIGKILL after "
                        + grace(ctx).toSeconds() + " s");
                LOG.infof("Run %s stopping: %s", plan.runId(), ctx.stop.get().message());
                thread("stop-" + plan.runId(), () -> stopProcesses(ctx));
            }
            if (!relayFailureHandled && !relayThread.isAlive() && relayResult[0] != null
                    && relayResult[0].failure().isPresent()) {
                relayFailureHandled = true;
                RelayFailure f = relayResult[0].failure().get();
                log.line("service", "relay stopped: " + f.message());
                // Stop the tap. On a bad line the target got every line before it and finishes
                // normally (its stdin is closed); when the target closed its input, nothing reads on.
                thread("stop-tap-" + plan.runId(), () -> terminate(tap));
            }
        }
        relayThread.join(config.runner().terminateGrace().toMillis() + 5000);
        if (relayThread.isAlive() || tap.isAlive()) {
            terminate(tap);
            relayThread.join();
        }
        for (ConnectorProcess m : mappers) {
            if (!waitFor(m, config.runner().terminateGrace())) {
                terminate(m);
            }
        }
        for (Thread p : pumps) {
            p.join(5000);
        }
        stateReader.join(5000);
        if (!waitFor(tap, config.runner().terminateGrace())) {
            terminate(tap);
        }

        exitCodes.put("extractor", code(tap));
        for (int i = 0; i < mappers.size(); i++) {
            exitCodes.put("mapper:" + plan.mappers().get(i).name(), code(mappers.get(i)));
        }
        exitCodes.put("loader", code(target));
        long endDeadline = endDeadline();
        if (!retry(endDeadline, () -> recordCounts(plan, relay.counts(), checkpointer))) {
            log.line("service", "the run's message counts could not be stored (database unreachable)");
        }
        if (checkpointer.emptyLines() > 0) {
            warnings.add("the loader emitted " + checkpointer.emptyLines() + " empty state(s) {}; they were not"
                    + " stored, so the existing bookmarks were kept");
        }
        if (checkpointer.invalidLines() > 0) {
            warnings.add(checkpointer.invalidLines() + " line(s) on the loader's stdout were not valid state"
                    + " (logged, never stored)");
        }

        // Outcome of the extract-load.
        ActiveRun.Stop stop = ctx.stop.get();
        Optional<RelayFailure> relayFailure = relayResult[0] == null ? Optional.empty() : relayResult[0].failure();
        // A tap we stopped because the target closed its input did not fail by itself.
        boolean tapStoppedByUs = relayFailure.isPresent() && relayFailure.get().kind() == RelayFailure.Kind.TARGET_CLOSED;
        boolean tapFailed = code(tap) != 0 && !tapStoppedByUs;
        boolean targetFailed = code(target) != 0;
        boolean mapperFailed = mappers.stream().anyMatch(m -> code(m) != 0);
        Outcome el;
        if (stop != null) {
            RunStatus s = stop.reason() == ActiveRun.StopReason.TIMED_OUT ? RunStatus.FAILED : RunStatus.CANCELLED;
            el = new Outcome(s, s == RunStatus.FAILED ? FailedComponent.SERVICE : null, stop.message(), exitCodes, warnings);
        } else if (relayFailure.isPresent() && relayFailure.get().kind() != RelayFailure.Kind.TARGET_CLOSED) {
            el = new Outcome(RunStatus.FAILED, FailedComponent.EXTRACTOR, "extractor output " + relayFailure.get().message(),
                    exitCodes, warnings);
        } else if (tapFailed && targetFailed) {
            el = new Outcome(RunStatus.FAILED, FailedComponent.EXTRACTOR, "Extractor and loader failed (exit codes "
                    + code(tap) + " and " + code(target) + ")" + tail(log, "extractor"), exitCodes, warnings);
        } else if (tapFailed) {
            el = new Outcome(RunStatus.FAILED, FailedComponent.EXTRACTOR, "Extractor failed (exit code " + code(tap)
                    + ")" + tail(log, "extractor"), exitCodes, warnings);
        } else if (mapperFailed) {
            el = new Outcome(RunStatus.FAILED, FailedComponent.MAPPER, "Mappers failed", exitCodes, warnings);
        } else if (targetFailed) {
            el = new Outcome(RunStatus.FAILED, FailedComponent.LOADER, "Loader failed (exit code " + code(target)
                    + ")" + tail(log, "loader"), exitCodes, warnings);
        } else if (relayFailure.isPresent()) {
            el = new Outcome(RunStatus.FAILED, FailedComponent.LOADER, "the loader closed its input before the end"
                    + " of the extractor's output", exitCodes, warnings);
        } else {
            el = new Outcome(RunStatus.SUCCEEDED, null, null, exitCodes, warnings);
        }

        ctx.stage("extract-load", ctx.startedAt, clock.instant(), el.status.name());

        // State: CHECKPOINT already stored every acknowledged line; ON_SUCCESS stores now, or never.
        if (plan.onSuccess()) {
            if (el.status == RunStatus.SUCCEEDED) {
                retry(endDeadline, () -> persist(plan, ctx, checkpointer));
            } else if (checkpointer.hasPending()) {
                warnings.add("state commit policy ON_SUCCESS: the state acknowledged by the loader was discarded"
                        + " because the run did not succeed");
                log.line("service", "ON_SUCCESS: acknowledged state discarded; stored state unchanged");
            }
        } else {
            retry(endDeadline, () -> persist(plan, ctx, checkpointer));
        }
        if (checkpointer.hasPending() && !plan.onSuccess()) {
            return new Outcome(RunStatus.FAILED, FailedComponent.SERVICE, "the state acknowledged by the loader could"
                    + " not be stored; see the run log", exitCodes, warnings);
        }
        if (el.status != RunStatus.SUCCEEDED || plan.transform() == null) {
            if (plan.transform() != null) {
                log.line("service", "transform skipped: extract-load did not succeed");
            }
            return el;
        }
        return transform(plan, ctx, dir, prepared, exitCodes, warnings);
    }

    private Outcome transform(RunPlan plan, ActiveRun ctx, RunDirectory dir, Prepared prepared,
                              Map<String, Integer> exitCodes, List<String> warnings) throws Exception {
        RunPlan.Component t = plan.transform();
        List<String> cmd = new ArrayList<>();
        cmd.add(t.executable());
        cmd.addAll(t.args());
        cmd.addAll(plan.transformArgs());
        dir.write("transform.config.json", Jsons.write(prepared.transform()));
        ctx.log.line("service", "transform: " + String.join(" ", cmd));
        Instant transformStart = clock.instant();
        ConnectorProcess proc = start(ctx, "transform", cmd, dir, prepared, t.name());
        closeQuietly(proc.stdin());
        thread("transform-stdout", () -> {
            try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(proc.stdout(),
                    java.nio.charset.StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    ctx.log.line("transform", line);
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
        Instant deadline = plan.timeoutSeconds() == null ? null : ctx.startedAt.plusSeconds(plan.timeoutSeconds());
        while (!waitFor(proc, POLL)) {
            if (deadline != null && clock.instant().isAfter(deadline)) {
                ctx.requestStop(ActiveRun.StopReason.TIMED_OUT, "timed out after " + plan.timeoutSeconds() + " s");
            }
            if (ctx.stop.get() != null && !ctx.stopping) {
                ctx.stopping = true;
                thread("stop-transform", () -> terminate(proc));
            }
        }
        exitCodes.put("transform", code(proc));
        ActiveRun.Stop stop = ctx.stop.get();
        ctx.stage("transform", transformStart, clock.instant(), stop != null ? (stop.reason()
                == ActiveRun.StopReason.TIMED_OUT ? "FAILED" : "CANCELLED") : code(proc) == 0 ? "SUCCEEDED" : "FAILED");
        if (stop != null) {
            RunStatus s = stop.reason() == ActiveRun.StopReason.TIMED_OUT ? RunStatus.FAILED : RunStatus.CANCELLED;
            return new Outcome(s, s == RunStatus.FAILED ? FailedComponent.TRANSFORM : null, stop.message() + " (during"
                    + " the transform)", exitCodes, warnings);
        }
        if (code(proc) != 0) {
            return new Outcome(RunStatus.FAILED, FailedComponent.TRANSFORM, "Transform failed (exit code "
                    + code(proc) + ")" + tail(ctx.log, "transform"), exitCodes, warnings);
        }
        return new Outcome(RunStatus.SUCCEEDED, null, null, exitCodes, warnings);
    }

    /**
     * Stores the checkpointer's pending change in one transaction with the run's heartbeat.
     *
     * @return false when the database could not be reached (the change stays pending for a retry);
     *     true when it was stored, nothing was pending, or the run is no longer this replica's
     */
    private boolean persist(RunPlan plan, ActiveRun ctx, StateCheckpointer checkpointer) {
        Optional<StateCheckpointer.Change> change = checkpointer.drain();
        if (change.isEmpty()) {
            return true;
        }
        StateCheckpointer.Change c = change.get();
        try {
            long size = QuarkusTransaction.requiringNew().call(() -> {
                OffsetDateTime now = OffsetDateTime.now(clock);
                if (runs.heartbeat(List.of(plan.runId()), instance.get(), now).isEmpty()) {
                    return -1L;
                }
                StateService.Snapshot s = states.applyFromRun(plan.stateId(), plan.runId(), c.wrapped(), c.complete());
                String after = merged(s.state());
                runs.getEntityManager().createNativeQuery("update pipeline_run set state_after = :s, state_lines = :n,"
                                + " invalid_state_lines = :i where id = :id")
                        .setParameter("s", after).setParameter("n", checkpointer.validLines())
                        .setParameter("i", checkpointer.invalidLines()).setParameter("id", plan.runId()).executeUpdate();
                return after == null ? 0L : (long) after.getBytes(StandardCharsets.UTF_8).length;
            });
            if (size < 0) {
                ctx.log.line("service", "this replica no longer owns the run (heartbeat lost); state not stored");
                ctx.requestStop(ActiveRun.StopReason.LOST, "the run was failed by another replica (heartbeat lost)");
            } else {
                metrics.statePersisted(plan.pipeline());
                metrics.stateSize(plan.pipeline(), size);
                if (ctx.persistFailures > 0) {
                    ctx.log.line("service", "state stored again after " + ctx.persistFailures + " failed attempt(s)");
                    LOG.infof("Run %s: state stored again after %d failed attempt(s)", plan.runId(), ctx.persistFailures);
                    ctx.persistFailures = 0;
                }
            }
            return true;
        } catch (io.tapline.common.error.ProblemException e) {
            // The state itself cannot be stored (a type conflict with the stored partial state): keep
            // the stored state, never retry the same change.
            ctx.log.line("service", "state from the loader not stored: " + e.getMessage());
            ctx.warnings.add("a state from the loader could not be merged with the stored state and was not stored: "
                    + e.getMessage());
            return true;
        } catch (RuntimeException e) {
            checkpointer.restore(c);
            if (ctx.persistFailures++ == 0) {
                ctx.log.line("service", "storing state failed, will retry: " + rootMessage(e));
                LOG.warnf("Run %s: storing state failed, will retry: %s", plan.runId(), rootMessage(e));
            }
            return false;
        }
    }

    /**
     * The deadline of the writes at the end of a run: {@code tapline.runner.state-store-retry} from
     * now, or the shutdown deadline when the service is stopping.
     */
    private long endDeadline() {
        long d = System.nanoTime() + config.runner().stateStoreRetry().toNanos();
        return shuttingDown ? Math.min(d, shutdownDeadline) : d;
    }

    /**
     * Calls {@code attempt} until it returns true or {@code deadline} ({@link System#nanoTime()})
     * has passed, pausing a little longer after each failure (up to 2 s).
     *
     * @return whether an attempt succeeded
     */
    private static boolean retry(long deadline, BooleanSupplier attempt) {
        long pause = 100;
        while (true) {
            if (attempt.getAsBoolean()) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                Thread.sleep(Math.min(pause, left / 1_000_000 + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            pause = Math.min(pause * 2, RETRY_PAUSE_MAX.toMillis());
        }
    }

    private void readState(InputStream targetStdout, StateCheckpointer checkpointer, RunLog log) {
        byte[] buf = new byte[65536];
        byte[] line = new byte[8192];
        int len = 0;
        long lineNo = 0;
        try {
            int n;
            while ((n = targetStdout.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        lineNo++;
                        handleStateLine(line, len, lineNo, checkpointer, log);
                        len = 0;
                    } else {
                        if (len == line.length) {
                            if (line.length >= config.runner().maxLineLength()) {
                                continue;
                            }
                            line = java.util.Arrays.copyOf(line, (int) Math.min((long) line.length * 2,
                                    config.runner().maxLineLength()));
                        }
                        line[len++] = b;
                    }
                }
            }
            if (len > 0) {
                handleStateLine(line, len, lineNo + 1, checkpointer, log);
            }
        } catch (IOException e) {
            log.line("service", "reading the loader's output failed: " + e.getMessage());
        }
    }

    private static void handleStateLine(byte[] line, int len, long lineNo, StateCheckpointer checkpointer, RunLog log) {
        int end = len;
        while (end > 0 && (line[end - 1] == '\r' || line[end - 1] == ' ' || line[end - 1] == '\t')) {
            end--;
        }
        if (end == 0) {
            return;
        }
        StateCheckpointer.Outcome o = checkpointer.offer(line, end);
        switch (o) {
            case INVALID -> log.line("loader", "[stdout line " + lineNo + "] Received state is invalid, incremental"
                    + " state has not been updated: " + StateCheckpointer.excerpt(line, end));
            case NOT_AN_OBJECT -> log.line("loader", "[stdout line " + lineNo + "] not a JSON object; not stored: "
                    + StateCheckpointer.excerpt(line, end));
            case EMPTY_IGNORED -> log.line("service", "the loader emitted an empty state {}; ignored to keep the"
                    + " existing bookmarks");
            case CONFLICT -> log.line("loader", "[stdout line " + lineNo + "] cannot be merged with the previous state"
                    + " lines (an object over a non-object); not stored");
            default -> {
            }
        }
    }

    private Optional<Path> catalog(RunPlan plan, RunDirectory dir, Path extractorConfig, Prepared prepared,
                                   RunLog log) throws Exception {
        RunPlan.Component ex = plan.extractor();
        if (!ex.can("catalog") && !ex.can("properties")) {
            return Optional.empty();
        }
        ObjectNode catalog = ex.catalog();
        if (catalog == null && ex.can("discover")) {
            log.line("service", "discovering the catalog");
            List<String> cmd = new ArrayList<>();
            cmd.add(ex.executable());
            cmd.addAll(ex.args());
            cmd.add("--config");
            cmd.add(extractorConfig.toString());
            cmd.add("--discover");
            Path discovered = dir.path().resolve("discovered.json");
            ConnectorProcess p;
            try {
                p = new ProcessSupervisor().start(new ProcessSpec("extractor", cmd, dir.path(), env(prepared, ex.name())),
                        log::prefixed);
            } catch (IOException e) {
                throw new ComponentFailed(FailedComponent.EXTRACTOR, startFailure("extractor", ex.executable(), e));
            }
            closeQuietly(p.stdin());
            try (InputStream in = p.stdout()) {
                Files.copy(in, discovered);
            }
            if (!p.waitFor(Duration.ofMinutes(10))) {
                p.terminate(config.runner().terminateGrace());
                throw new ComponentFailed(FailedComponent.EXTRACTOR, "catalog discovery did not finish within 10 minutes");
            }
            p.awaitStderr(Duration.ofSeconds(2));
            if (code(p) != 0) {
                throw new ComponentFailed(FailedComponent.EXTRACTOR, "catalog discovery failed (exit code " + code(p) + ")"
                        + tail(log, "extractor"));
            }
            JsonNode parsed = Jsons.read(Files.readString(discovered));
            catalog = parsed instanceof ObjectNode o ? o : null;
            if (catalog == null) {
                throw new ComponentFailed(FailedComponent.EXTRACTOR, "catalog discovery printed no JSON object");
            }
        }
        if (catalog == null) {
            log.line("service", "the extractor declares 'catalog' but has no stored catalog and cannot discover");
            return Optional.empty();
        }
        ObjectNode selected = CatalogRules.apply(catalog, ex.select(), ex.metadata());
        return Optional.of(dir.write("catalog.json", Jsons.write(selected)));
    }

    /** A component could not be started or failed before the run proper (discovery). */
    static final class ComponentFailed extends RuntimeException {
        final FailedComponent component;

        ComponentFailed(FailedComponent component, String message) {
            super(message);
            this.component = component;
        }
    }

    private Optional<String> tapState(MeltanoState state, List<String> fullRefreshStreams, RunLog log) {
        MeltanoState s = state;
        if (!fullRefreshStreams.isEmpty()) {
            ObjectNode merged;
            try {
                merged = state.merged();
            } catch (StateConflictException e) {
                throw new IllegalStateException("the stored state cannot be merged at " + e.path());
            }
            JsonNode bookmarks = merged.path("singer_state").path("bookmarks");
            if (bookmarks instanceof ObjectNode b) {
                for (String stream : fullRefreshStreams) {
                    if (b.remove(stream) != null) {
                        log.line("service", "full refresh of stream '" + stream + "': its bookmark is not passed");
                    }
                }
            }
            s = new MeltanoState(merged, null);
        }
        Optional<String> file = s.tapStateFile();
        if (file.isEmpty()) {
            log.line("service", "No state was found, complete import.");
        }
        return file;
    }

    private List<String> command(RunPlan.Component c, Path configFile) {
        List<String> cmd = new ArrayList<>();
        cmd.add(c.executable());
        cmd.addAll(c.args());
        cmd.add("--config");
        cmd.add(configFile.toString());
        return cmd;
    }

    private ConnectorProcess start(ActiveRun ctx, String prefix, List<String> cmd, RunDirectory dir, Prepared prepared,
                                   String plugin) throws IOException {
        ConnectorProcess p;
        try {
            p = ctx.supervisor.start(new ProcessSpec(prefix, cmd, dir.path(), env(prepared, plugin)), ctx.log::prefixed);
        } catch (IOException e) {
            FailedComponent c = prefix.startsWith("mapper") ? FailedComponent.MAPPER : prefix.equals("extractor")
                    ? FailedComponent.EXTRACTOR : prefix.equals("loader") ? FailedComponent.LOADER : FailedComponent.TRANSFORM;
            throw new ComponentFailed(c, startFailure(prefix, cmd.get(0), e));
        }
        return p;
    }

    private Map<String, String> env(Prepared prepared, String plugin) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : config.runner().inheritEnv()) {
            String v = System.getenv(name);
            if (v != null) {
                env.put(name, v);
            }
        }
        env.putAll(prepared.env().getOrDefault(plugin, Map.of()));
        env.putAll(prepared.env().getOrDefault("", Map.of()));
        return env;
    }

    /** Time between SIGTERM and SIGKILL for the run's processes: the shutdown grace on service shutdown. */
    private Duration grace(ActiveRun ctx) {
        ActiveRun.Stop stop = ctx.stop.get();
        if (stop != null && stop.reason() == ActiveRun.StopReason.SHUTDOWN) {
            return shutdownGrace();
        }
        return config.runner().terminateGrace();
    }

    private Duration shutdownGrace() {
        return config.runner().shutdownGrace().orElse(config.runner().terminateGrace());
    }

    private void stopProcesses(ActiveRun ctx) {
        Duration grace = grace(ctx);
        try {
            Map<ConnectorProcess, Termination> result = ctx.supervisor.terminateAll(grace);
            result.forEach((p, t) -> {
                if (t.neededKill()) {
                    ctx.log.line("service", "SIGKILL after " + grace.toSeconds()
                            + " s grace: " + p.component() + " pid(s) " + t.killed());
                }
                if (!t.remaining().isEmpty()) {
                    ctx.log.line("service", "still alive after SIGKILL: " + p.component() + " pid(s) " + t.remaining());
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {"streams": {name: {records, schemas, activateVersions, batches, bytes}}, "states": n, "lines": n}. */
    private static ObjectNode countsJson(StreamCounts counts) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode streams = root.putObject("streams");
        counts.streams().forEach((name, c) -> {
            ObjectNode s = streams.putObject(name);
            s.put("records", c.records());
            s.put("schemas", c.schemas());
            s.put("activateVersions", c.activateVersions());
            s.put("batches", c.batches());
            s.put("bytes", c.bytes());
        });
        root.put("states", counts.total().states());
        root.put("lines", counts.lines());
        return root;
    }

    /** Stores the run's message counts; false when the database could not be reached. */
    private boolean recordCounts(RunPlan plan, StreamCounts counts, StateCheckpointer checkpointer) {
        ObjectNode root = countsJson(counts);
        MessageCounts total = counts.total();
        try {
            QuarkusTransaction.requiringNew().run(() -> runs.getEntityManager().createNativeQuery(
                            "update pipeline_run set stream_counts = :c, records_total = :r, bytes_total = :b,"
                                    + " state_lines = :n, invalid_state_lines = :i where id = :id")
                    .setParameter("c", Jsons.write(root)).setParameter("r", total.records()).setParameter("b", counts.bytes())
                    .setParameter("n", checkpointer.validLines()).setParameter("i", checkpointer.invalidLines())
                    .setParameter("id", plan.runId()).executeUpdate());
        } catch (RuntimeException e) {
            return false;
        }
        counts.streams().forEach((name, c) -> metrics.records(plan.pipeline(), name, c.records()));
        return true;
    }

    /**
     * Refreshes the heartbeat, log tail and live counts of this replica's runs, and picks up cancel
     * requests. A run that is no longer RUNNING and owned here (the reaper of another replica
     * failed it) is stopped.
     */
    public void heartbeat() {
        if (active.isEmpty()) {
            return;
        }
        Collection<UUID> ids = new HashSet<>(active.keySet());
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                OffsetDateTime now = OffsetDateTime.now(clock);
                List<UUID> alive = runs.heartbeat(ids, instance.get(), now);
                for (UUID id : ids) {
                    ActiveRun ctx = active.get(id);
                    if (ctx == null) {
                        continue;
                    }
                    if (!alive.contains(id)) {
                        ctx.requestStop(ActiveRun.StopReason.LOST, "the run was failed by another replica (heartbeat lost)");
                        continue;
                    }
                    StreamCounts counts = ctx.relay == null ? StreamCounts.EMPTY : ctx.relay.counts();
                    runs.getEntityManager().createNativeQuery("update pipeline_run set log_tail = :t, log_bytes = :b,"
                                    + " records_total = :r, bytes_total = :by, stream_counts = :c where id = :id")
                            .setParameter("t", ctx.log.tail()).setParameter("b", ctx.log.totalBytes())
                            .setParameter("r", counts.total().records()).setParameter("by", counts.bytes())
                            .setParameter("c", Jsons.write(countsJson(counts))).setParameter("id", id).executeUpdate();
                }
                for (UUID id : runs.cancelRequested(alive)) {
                    ActiveRun ctx = active.get(id);
                    if (ctx != null) {
                        Run r = runs.findById(id);
                        ctx.requestStop(ActiveRun.StopReason.CANCELLED, r.cancelReason == null ? "cancelled" : r.cancelReason);
                    }
                }
            });
            if (heartbeatFailing) {
                heartbeatFailing = false;
                LOG.info("Heartbeat stored again");
            }
        } catch (RuntimeException e) {
            if (!heartbeatFailing) {
                heartbeatFailing = true;
                LOG.warnf("Heartbeat failed (repeats are logged at DEBUG until it works again): %s", rootMessage(e));
            } else {
                LOG.debugf("Heartbeat failed: %s", rootMessage(e));
            }
        }
    }

    /** Asks a local run to stop (cancel); true when this replica runs it. */
    public boolean cancelLocal(UUID id, String reason) {
        ActiveRun ctx = active.get(id);
        return ctx != null && ctx.requestStop(ActiveRun.StopReason.CANCELLED, reason);
    }

    /**
     * Stops every run of this replica because the service is shutting down: SIGTERM to their
     * processes, SIGKILL after {@code tapline.runner.shutdown-grace} (default: the terminate
     * grace), last acknowledged state stored, runs marked CANCELLED with the reason
     * {@value #SHUTDOWN_REASON}. A run that reaches {@link #execute} from now on ends the same way
     * without starting any process. Returns when every run has ended, or after the grace plus 20 s
     * for the database writes; a run still unfinished then is left to the heartbeat reaper.
     */
    public void shutdown() {
        shutdownDeadline = System.nanoTime() + shutdownGrace().plus(SHUTDOWN_MARGIN).toNanos();
        shuttingDown = true;
        Set<UUID> stopping = Set.copyOf(executing);
        if (!stopping.isEmpty()) {
            LOG.infof("Service shutdown: stopping %d run(s) %s; connectors get %d s after SIGTERM", stopping.size(),
                    stopping, shutdownGrace().toSeconds());
        }
        for (ActiveRun ctx : active.values()) {
            ctx.requestStop(ActiveRun.StopReason.SHUTDOWN, SHUTDOWN_REASON);
        }
        awaitIdle(shutdownDeadline);
    }

    /**
     * Waits until no run is inside {@link #execute} or {@code deadline} ({@link System#nanoTime()})
     * has passed; a run that registered late (claimed just before the shutdown) is asked to stop too.
     *
     * @return true when every run has ended
     */
    public boolean awaitIdle(long deadline) {
        long nextHeartbeat = System.nanoTime();
        while (!executing.isEmpty() && System.nanoTime() < deadline) {
            for (ActiveRun ctx : active.values()) {
                if (shuttingDown) {
                    ctx.requestStop(ActiveRun.StopReason.SHUTDOWN, SHUTDOWN_REASON);
                }
            }
            // Keep the runs' heartbeat fresh while connectors flush, whether or not the scheduler
            // still fires, so that no other replica reaps them meanwhile.
            if (System.nanoTime() - nextHeartbeat >= 0) {
                heartbeat();
                nextHeartbeat = System.nanoTime() + config.runner().heartbeatInterval().toNanos();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return executing.isEmpty();
            }
        }
        if (!executing.isEmpty()) {
            LOG.warnf("Run(s) %s did not end in time; the heartbeat reaper of another replica will fail them", executing);
            return false;
        }
        return true;
    }

    /** The {@link System#nanoTime()} by which {@link #shutdown()} gives up waiting; 0 before it. */
    public long shutdownDeadline() {
        return shuttingDown ? shutdownDeadline : 0L;
    }

    private void finish(UUID runId, String pipeline, ActiveRun ctx, RunStatus status, FailedComponent component, String reason,
                        Map<String, Integer> exitCodes, List<String> warnings) {
        try {
            if (ctx != null) {
                ctx.log.line("service", "run " + status + (reason == null ? "" : ": " + reason));
                ctx.log.flush();
            }
            Boolean[] result = new Boolean[1];
            RuntimeException[] lastError = new RuntimeException[1];
            retry(endDeadline(), () -> {
                try {
                    result[0] = recordEnd(runId, ctx, status, component, reason, exitCodes, warnings);
                    return true;
                } catch (RuntimeException e) {
                    if (lastError[0] == null) {
                        LOG.warnf("Recording the end of run %s failed, will retry: %s", runId, rootMessage(e));
                    }
                    lastError[0] = e;
                    return false;
                }
            });
            if (result[0] == null) {
                throw lastError[0];
            }
            boolean changed = result[0];
            if (changed) {
                Duration d = ctx == null ? Duration.ZERO : Duration.between(ctx.startedAt, clock.instant());
                metrics.finished(pipeline, status, d);
                LOG.infof("Run %s of pipeline '%s' ended %s%s", runId, pipeline, status, reason == null ? "" : ": " + reason);
                finished.fire(new RunFinished(runId, status));
            } else {
                LOG.infof("Run %s was already ended elsewhere; its outcome here (%s) was not recorded", runId, status);
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "Recording the end of run %s failed", runId);
        } finally {
            active.remove(runId);
            logs.close(runId);
        }
    }

    /** The guarded status update at the end of a run; true when this replica's update won. */
    private boolean recordEnd(UUID runId, ActiveRun ctx, RunStatus status, FailedComponent component, String reason,
                              Map<String, Integer> exitCodes, List<String> warnings) {
        return QuarkusTransaction.requiringNew().call(() -> {
            int n = runs.getEntityManager().createNativeQuery("""
                            update pipeline_run set status = :status, ended_at = :now, failed_component = :component,
                                error_summary = :reason, exit_codes = :codes, warnings = :warnings,
                                log_tail = :tail, log_bytes = :bytes, last_heartbeat_at = :now, stages = :stages,
                                version = version + 1
                            where id = :id and status = 'RUNNING' and owner_instance = :owner
                            """)
                    .setParameter("status", status.name()).setParameter("now", OffsetDateTime.now(clock))
                    .setParameter("component", component == null ? null : component.id())
                    .setParameter("reason", reason).setParameter("codes", Jsons.write(exitCodes))
                    .setParameter("warnings", Jsons.write(warnings))
                    .setParameter("tail", ctx == null ? "" : ctx.log.tail())
                    .setParameter("bytes", ctx == null ? 0L : ctx.log.totalBytes())
                    .setParameter("stages", ctx == null ? "[]" : Jsons.write(ctx.stages))
                    .setParameter("id", runId).setParameter("owner", instance.get()).executeUpdate();
            return n == 1;
        });
    }

    private static String merged(MeltanoState s) {
        try {
            return PythonJson.write(s.merged(), PythonJson.Layout.COMPACT);
        } catch (StateConflictException e) {
            return null;
        }
    }

    private static String tail(RunLog log, String component) {
        String t = log.tail();
        String marker = " " + component + " | ";
        String last = null;
        for (String line : t.split("\n")) {
            int i = line.indexOf(marker);
            if (i >= 0) {
                last = line.substring(i + marker.length());
            }
        }
        if (last == null || last.isBlank()) {
            return "";
        }
        return ": " + (last.length() > 300 ? last.substring(0, 300) + "..." : last);
    }

    /** A readable reason for a process that could not start, without service paths or the PATH value. */
    static String startFailure(String component, String executable, IOException e) {
        String m = String.valueOf(e.getMessage());
        String why;
        if (m.contains("error=2,") || m.contains("not found") || m.contains("No such file")) {
            why = executable.contains("/") ? "no such file" : "not found on the PATH of the run (tapline.runner.inherit-env"
                    + " passes the service's PATH)";
        } else if (m.contains("error=13,") || m.contains("ermission denied")) {
            why = "permission denied (is it executable?)";
        } else if (m.contains("error=8,") || m.contains("Exec format error")) {
            why = "not an executable program (a script needs a #! line)";
        } else {
            why = "the operating system refused to start it";
        }
        return "cannot start the " + component + " '" + executable + "': " + why;
    }

    private static int code(ConnectorProcess p) {
        return p.exitCode().orElse(-1);
    }

    private static boolean waitFor(ConnectorProcess p, Duration d) {
        try {
            boolean done = p.waitFor(d);
            if (done) {
                p.awaitStderr(Duration.ofSeconds(2));
            }
            return done;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    private void terminate(ConnectorProcess p) {
        try {
            p.terminate(config.runner().terminateGrace());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pump(InputStream from, OutputStream to) {
        byte[] buf = new byte[65536];
        try {
            int n;
            while ((n = from.read(buf)) > 0) {
                to.write(buf, 0, n);
            }
            to.flush();
        } catch (IOException ignored) {
            // the consumer ended; the exit codes tell the story
        } finally {
            closeQuietly(to);
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Starts a daemon helper thread that carries the caller's MDC (run id, pipeline, state ID). */
    private static Thread thread(String name, Runnable body) {
        Map<String, Object> mdc = MDC.getMap();
        Thread t = new Thread(() -> {
            mdc.forEach(MDC::put);
            try {
                body.run();
            } finally {
                mdc.keySet().forEach(MDC::remove);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
