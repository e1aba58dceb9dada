package io.tapline.run.exec;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.config.TaplineConfig;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.ProcessSpec;
import io.tapline.run.FailedComponent;
import io.tapline.run.InstanceId;
import io.tapline.run.RunLog;
import io.tapline.run.RunRepository;
import io.tapline.run.RunStatus;
import io.tapline.state.InvalidJsonException;
import io.tapline.state.InvalidStateException;
import io.tapline.state.MeltanoBackendDirectory;
import io.tapline.state.MeltanoState;
import io.tapline.state.PythonJson;
import io.tapline.state.StateConflictException;
import io.tapline.state.StateMirror;
import io.tapline.state.StateService;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Meltano-CLI executor: runs a pipeline with {@code executor: meltano} as
 * {@code <meltano> --environment <env> run [--state-id-suffix S] [--full-refresh]
 * [--state-strategy X] <blocks...>} in its Meltano project directory, where the blocks are the
 * pipeline's job ({@code meltano run <job>}) or its extractor, mappers, loader and
 * {@code <transform>:<command>}.
 *
 * <p>State goes through Meltano's local-filesystem state backend (meltano-state.md §1d): before the
 * run the stored record of the pipeline's state ID is written to {@code <root>/<state_id>/state.json}
 * (lock-file protocol, atomic rename, {@link MeltanoBackendDirectory}), and the process gets
 * {@code MELTANO_STATE_BACKEND_URI=file://<root>} and {@code MELTANO_PROJECT_ROOT}. The root is the
 * pipeline's {@code meltanoStateBackendDir}, else {@code tapline.meltano.state-backend-dir}, else a
 * private directory of the run. Meltano stores each state line of the target there during the run;
 * after it, what Meltano wrote is read with {@link MeltanoState#fromStateJson} and stored as a RUN
 * change when it differs from what was exported: always when the run succeeded, and under the
 * CHECKPOINT policy also when it failed or was stopped (Meltano had already committed it);
 * ON_SUCCESS discards it then.
 *
 * <p>The process is started without a shell by the run's process supervisor; its stdout and stderr
 * go to the run log with the prefix {@code meltano}. Cancel, timeout and shutdown stop it with
 * SIGTERM, then SIGKILL after the grace period. The exit code is recorded as {@code meltano}.
 * {@code meltano run} always derives its state IDs ({@code <env>:<tap>-to-<target>[:<suffix>]}), so
 * such pipelines cannot override their state ID.
 */
@ApplicationScoped
public class MeltanoCliRunner {

    private static final Duration POLL = Duration.ofMillis(100);

    /**
     * The outcome of a run.
     *
     * @param status SUCCEEDED, FAILED or CANCELLED
     * @param component the failed component, or null
     * @param reason readable reason of a failure or stop, or null
     * @param exitCodes {@code {"meltano": code}}
     * @param warnings warnings for the run record
     */
    public record Result(RunStatus status, FailedComponent component, String reason, Map<String, Integer> exitCodes,
                         List<String> warnings) {
    }

    /**
     * What is resolved before the log opens.
     *
     * @param env the pipeline's environment variables with references resolved
     * @param secrets resolved values of secret references, masked in the log
     */
    public record Prepared(Map<String, String> env, List<String> secrets) {
    }

    private final StateService states;
    private final StateMirror mirror;
    private final RunRepository runs;
    private final InstanceId instance;
    private final TaplineConfig config;
    private final Clock clock;

    public MeltanoCliRunner(StateService states, StateMirror mirror, RunRepository runs, InstanceId instance,
                            TaplineConfig config, Clock clock) {
        this.states = states;
        this.mirror = mirror;
        this.runs = runs;
        this.instance = instance;
        this.config = config;
        this.clock = clock;
    }

    /**
     * Resolves the pipeline's env references ({@code ${NAME}}, {@code ${env:...}}, {@code ${secret:...}}).
     *
     * @throws ConfigResolver.ConfigReferenceException when a reference cannot be resolved
     */
    public Prepared prepare(RunPlan plan) {
        Map<String, String> runEnv = new LinkedHashMap<>(plan.env());
        ConfigResolver resolver = new ConfigResolver(System::getenv, runEnv, config.secrets().dir().orElse(null));
        Map<String, String> env = new LinkedHashMap<>();
        plan.env().forEach((k, v) -> env.put(k, resolver.resolveString(v, "pipeline env " + k)));
        return new Prepared(env, List.copyOf(resolver.secrets()));
    }

    /** The command line of a run, without the executable's path resolution. */
    static List<String> command(String executable, RunPlan plan) {
        RunPlan.MeltanoCli m = plan.meltano();
        List<String> cmd = new ArrayList<>(List.of(executable, "--environment", plan.environment(), "run"));
        if (m.stateIdSuffix() != null && !m.stateIdSuffix().isEmpty()) {
            cmd.add("--state-id-suffix");
            cmd.add(m.stateIdSuffix());
        }
        if (plan.fullRefresh()) {
            cmd.add("--full-refresh");
        }
        if (!"auto".equals(plan.strategy())) {
            cmd.add("--state-strategy");
            cmd.add(plan.strategy());
        }
        if (m.job() != null) {
            cmd.add(m.job());
        } else {
            cmd.add(plan.extractor().name());
            plan.mappers().forEach(c -> cmd.add(c.name()));
            cmd.add(plan.loader().name());
            if (plan.transform() != null) {
                cmd.add(plan.transform().name()
                        + (plan.transformArgs().isEmpty() ? "" : ":" + plan.transformArgs().get(0)));
            }
        }
        return cmd;
    }

    /** Runs the plan on the calling thread until {@code meltano} has ended and its state is stored. */
    Result run(RunPlan plan, ActiveRun ctx, Prepared prepared) throws Exception {
        RunLog log = ctx.log;
        List<String> warnings = new ArrayList<>();
        Path project = Path.of(plan.meltano().projectDir());
        if (!Files.isDirectory(project)) {
            return new Result(RunStatus.FAILED, FailedComponent.SERVICE, "the Meltano project directory " + project
                    + " does not exist", Map.of(), warnings);
        }
        if (!plan.fullRefreshStreams().isEmpty()) {
            warnings.add("meltano run cannot refresh single streams; fullRefreshStreams " + plan.fullRefreshStreams()
                    + " were ignored");
            log.line("service", warnings.get(warnings.size() - 1));
        }
        try (RunDirectory runDir = RunDirectory.create(config.runner().runsDir(), plan.runId())) {
            Path root = Optional.ofNullable(plan.meltano().stateBackendDir()).map(Path::of)
                    .or(() -> config.meltano().stateBackendDir())
                    .orElse(runDir.path().resolve("state-backend")).toAbsolutePath().normalize();
            Files.createDirectories(root);
            MeltanoBackendDirectory backend = mirror.open(root);

            // Export the stored state for Meltano, after importing an outside change of the shared directory.
            mirror.reconcile(plan.stateId()).ifPresent(w -> {
                warnings.add(w);
                log.line("service", w);
            });
            StateService.Snapshot before = states.get(plan.stateId());
            String exported = before.exists() ? before.state().toStateJson() : null;
            if (exported != null) {
                backend.write(plan.stateId(), exported);
                log.line("service", "state of '" + plan.stateId() + "' exported to " + backend.dir(plan.stateId())
                        .resolve(MeltanoBackendDirectory.STATE_FILE));
            } else {
                backend.delete(plan.stateId());
                log.line("service", "no state stored for '" + plan.stateId() + "'; Meltano starts without state");
            }
            String mergedBefore = merged(before.state());
            QuarkusTransaction.requiringNew().run(() -> runs.getEntityManager().createNativeQuery(
                            "update pipeline_run set state_before = :s where id = :id")
                    .setParameter("s", mergedBefore).setParameter("id", plan.runId()).executeUpdate());

            // Run meltano.
            List<String> cmd = command(executable(), plan);
            Map<String, String> env = new LinkedHashMap<>();
            for (String name : config.runner().inheritEnv()) {
                String v = System.getenv(name);
                if (v != null) {
                    env.put(name, v);
                }
            }
            env.putAll(prepared.env());
            env.put("MELTANO_STATE_BACKEND_URI", "file://" + root);
            env.put("MELTANO_PROJECT_ROOT", project.toAbsolutePath().toString());
            log.line("service", "starting: " + String.join(" ", cmd) + " (in " + project + ", state backend file://"
                    + root + ")");
            // Meltano logs to stderr; the reason of a failure is its last error line (else its last
            // stderr line), whatever the stdout lines logged around it.
            AtomicReference<String> lastError = new AtomicReference<>();
            AtomicReference<String> lastStderr = new AtomicReference<>();
            ConnectorProcess p;
            try {
                p = ctx.supervisor.start(new ProcessSpec("meltano", cmd, project, env), line -> {
                    String text = line.startsWith("meltano | ") ? line.substring(10).trim() : line.trim();
                    if (!text.isEmpty()) {
                        lastStderr.set(text);
                        if (text.toLowerCase(Locale.ROOT).contains("error")) {
                            lastError.set(text);
                        }
                    }
                    log.prefixed(line);
                });
            } catch (IOException e) {
                return new Result(RunStatus.FAILED, FailedComponent.SERVICE, "meltano could not be started: "
                        + e.getMessage(), Map.of(), warnings);
            }
            closeQuietly(p);
            Thread stdout = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.stdout(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        log.line("meltano", line);
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            }, "meltano-stdout-" + plan.runId());
            stdout.setDaemon(true);
            stdout.start();
            Instant deadline = plan.timeoutSeconds() == null ? null : ctx.startedAt.plusSeconds(plan.timeoutSeconds());
            while (!p.waitFor(POLL)) {
                if (deadline != null && clock.instant().isAfter(deadline)) {
                    ctx.requestStop(ActiveRun.StopReason.TIMED_OUT, "timed out after " + plan.timeoutSeconds() + " s");
                }
                if (ctx.stop.get() != null && !ctx.stopping) {
                    ctx.stopping = true;
                    log.line("service", "stopping: " + ctx.stop.get().message() + "; SIGTERM to meltano");
                    Thread t = new Thread(() -> terminate(p), "stop-meltano-" + plan.runId());
                    t.setDaemon(true);
                    t.start();
                }
            }
            p.awaitStderr(Duration.ofSeconds(2));
            stdout.join(5000);
            int code = p.exitCode().orElse(-1);
            Map<String, Integer> exitCodes = Map.of("meltano", code);
            log.line("service", "meltano exited with code " + code);

            Result result;
            ActiveRun.Stop stop = ctx.stop.get();
            if (stop != null) {
                RunStatus s = stop.reason() == ActiveRun.StopReason.TIMED_OUT ? RunStatus.FAILED : RunStatus.CANCELLED;
                result = new Result(s, s == RunStatus.FAILED ? FailedComponent.SERVICE : null, stop.message(), exitCodes,
                        warnings);
            } else if (code == 0) {
                result = new Result(RunStatus.SUCCEEDED, null, null, exitCodes, warnings);
            } else {
                String last = shorten(lastError.get() != null ? lastError.get()
                        : lastStderr.get() != null ? lastStderr.get() : lastMeltanoLine(log));
                result = new Result(RunStatus.FAILED, component(last), "meltano run failed (exit code " + code + ")"
                        + (last == null ? "" : ": " + last), exitCodes, warnings);
            }

            // Import what Meltano wrote.
            Result afterState = importState(plan, ctx, backend, exported, result);
            return afterState == null ? result : afterState;
        }
    }

    /**
     * Stores what Meltano wrote into {@code <root>/<state_id>/state.json}, when it changed and the
     * policy allows; returns a different result only when the state could not be stored.
     */
    private Result importState(RunPlan plan, ActiveRun ctx, MeltanoBackendDirectory backend, String exported,
                               Result result) throws IOException {
        RunLog log = ctx.log;
        Optional<String> written = backend.read(plan.stateId());
        if (written.isEmpty()) {
            log.line("service", "Meltano wrote no state for '" + plan.stateId() + "'");
            return null;
        }
        MeltanoState state;
        try {
            state = MeltanoState.fromStateJson(written.get());
        } catch (InvalidJsonException | InvalidStateException e) {
            List<String> warnings = new ArrayList<>(result.warnings());
            warnings.add("the state.json Meltano left is invalid and was not stored: " + e.getMessage());
            log.line("service", warnings.get(warnings.size() - 1));
            return result.status() == RunStatus.SUCCEEDED
                    ? new Result(RunStatus.FAILED, FailedComponent.SERVICE, "the state Meltano wrote is invalid: "
                    + e.getMessage(), result.exitCodes(), warnings)
                    : new Result(result.status(), result.component(), result.reason(), result.exitCodes(), warnings);
        }
        if (exported != null && state.toStateJson().equals(exported)) {
            log.line("service", "state of '" + plan.stateId() + "' unchanged by Meltano");
            return null;
        }
        if (result.status() != RunStatus.SUCCEEDED && plan.onSuccess()) {
            List<String> warnings = new ArrayList<>(result.warnings());
            warnings.add("state commit policy ON_SUCCESS: the state Meltano wrote was discarded because the run did"
                    + " not succeed");
            log.line("service", "ON_SUCCESS: Meltano's state discarded; stored state unchanged");
            return new Result(result.status(), result.component(), result.reason(), result.exitCodes(), warnings);
        }
        boolean stored = QuarkusTransaction.requiringNew().call(() -> {
            if (runs.heartbeat(List.of(plan.runId()), instance.get(), OffsetDateTime.now(clock)).isEmpty()) {
                return false;
            }
            StateService.Snapshot s = states.write(plan.stateId(), new StateService.Origin(StateService.Source.RUN,
                    "meltano run", "run", plan.runId()), null, false, current -> state);
            runs.getEntityManager().createNativeQuery("update pipeline_run set state_after = :s where id = :id")
                    .setParameter("s", merged(s.state())).setParameter("id", plan.runId()).executeUpdate();
            return true;
        });
        if (!stored) {
            log.line("service", "this replica no longer owns the run (heartbeat lost); Meltano's state not stored");
            return new Result(RunStatus.FAILED, FailedComponent.SERVICE, "the run was failed by another replica"
                    + " (heartbeat lost)", result.exitCodes(), result.warnings());
        }
        log.line("service", "state of '" + plan.stateId() + "' imported from Meltano's state backend");
        return null;
    }

    /** The configured {@code meltano}; a relative path with {@code /} is taken from the service's directory. */
    private String executable() {
        String exe = config.meltano().executable().trim();
        return exe.indexOf('/') >= 0 && !exe.startsWith("/") ? Path.of(exe).toAbsolutePath().normalize().toString() : exe;
    }

    /** The last line meltano logged (its error, usually), shortened. */
    private static String lastMeltanoLine(RunLog log) {
        String last = null;
        for (String line : log.tail().split("\n")) {
            int i = line.indexOf(" meltano | ");
            if (i >= 0 && !line.substring(i + 11).isBlank()) {
                last = line.substring(i + 11).trim();
            }
        }
        return last == null ? null : last.length() > 300 ? last.substring(0, 300) + "..." : last;
    }

    private static String shorten(String s) {
        return s == null || s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }

    /** The component Meltano names in its error ("Extractor failed", "Loader failed", "Mappers failed"), or null. */
    private static FailedComponent component(String message) {
        if (message == null) {
            return null;
        }
        String m = message.toLowerCase(Locale.ROOT);
        if (m.contains("extractor")) {
            return FailedComponent.EXTRACTOR;
        }
        if (m.contains("loader")) {
            return FailedComponent.LOADER;
        }
        if (m.contains("mapper")) {
            return FailedComponent.MAPPER;
        }
        if (m.contains("transform") || m.contains("utility")) {
            return FailedComponent.TRANSFORM;
        }
        return null;
    }

    private static String merged(MeltanoState s) {
        try {
            return PythonJson.write(s.merged(), PythonJson.Layout.COMPACT);
        } catch (StateConflictException e) {
            return null;
        }
    }

    private void terminate(ConnectorProcess p) {
        try {
            p.terminate(config.runner().terminateGrace());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(ConnectorProcess p) {
        try {
            p.stdin().close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
