package io.tapline.run.exec;

import io.tapline.common.db.DatabaseRetry;
import io.tapline.state.store.Snapshot;

import io.tapline.common.config.TaplineConfig;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.MessageCounts;
import io.tapline.connector.StreamCounts;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunFailure;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPreparation;
import io.tapline.run.RunLog;
import io.tapline.state.StateService;
import io.tapline.state.json.InvalidJsonException;
import io.tapline.state.mirror.MeltanoBackendDirectory;
import io.tapline.state.mirror.StateMirror;
import io.tapline.state.model.InvalidStateException;
import io.tapline.state.model.MeltanoState;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code meltano} executor: runs a pipeline as {@code <meltano> --environment <env> run
 * [--state-id-suffix S] [--full-refresh] [--state-strategy X] <blocks...>} in its Meltano project
 * directory, where the blocks are the pipeline's job ({@code meltano run <job>}) or its extractor,
 * mappers, loader and {@code <transform>:<command>}.
 *
 * <p>State goes through Meltano's local-filesystem state backend (meltano-state.md §1d): before the
 * run the stored record of the pipeline's state ID is written to {@code <root>/<state_id>/state.json}
 * (lock-file protocol, atomic rename, {@link MeltanoBackendDirectory}), and the process gets
 * {@code MELTANO_STATE_BACKEND_URI=file://<root>}, {@code MELTANO_PROJECT_ROOT} and
 * {@code NO_COLOR=1}. The root is the pipeline's {@code meltanoStateBackendDir}, else
 * {@code tapline.meltano.state-backend-dir}, else a private directory of the run. After the run,
 * what Meltano wrote is read with {@link MeltanoState#fromStateJson} and stored as a RUN change
 * when it differs from what was exported: always when the run succeeded, and under the CHECKPOINT
 * policy also when it failed or was stopped (Meltano had already committed it); ON_SUCCESS
 * discards it then.
 *
 * <p>The process runs under the run's supervisor and {@link ProcessWatch} (cancel, timeout,
 * shutdown). Its output goes to the run log with the prefix {@code meltano}, terminal escape
 * sequences removed; the reason of a failure is Meltano's real error ({@link MeltanoOutput}), and
 * the connectors' {@code record_count} metrics that Meltano passes through become the run's
 * per-stream record counts. The exit code is recorded as {@code meltano}. {@code meltano run}
 * always derives its state IDs ({@code <env>:<tap>-to-<target>[:<suffix>]}), so such pipelines
 * cannot override their state ID.
 */
@ApplicationScoped
public class MeltanoExecutor implements PipelineExecutor {

    /** The {@code executor} value. */
    public static final String ID = "meltano";

    private final StateMirror mirror;
    private final TaplineConfig config;
    private final RunPreparation preparation;
    private final RunStateWriter writer;
    private final ProcessWatch watch;
    private final io.tapline.common.security.MeltanoPolicy meltanoPolicy;

    public MeltanoExecutor(StateMirror mirror, TaplineConfig config, RunPreparation preparation, RunStateWriter writer,
                           ProcessWatch watch, io.tapline.common.security.MeltanoPolicy meltanoPolicy) {
        this.meltanoPolicy = meltanoPolicy;
        this.mirror = mirror;
        this.config = config;
        this.preparation = preparation;
        this.writer = writer;
        this.watch = watch;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public PreparedRun prepare(RunPlan plan) {
        return preparation.prepare(plan, false);
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

    @Override
    public Outcome execute(RunPlan plan, ActiveRun ctx, PreparedRun prepared, Map<String, Integer> exitCodes)
            throws Exception {
        RunLog log = ctx.log;
        Path project = Path.of(plan.meltano().projectDir());
        if (!Files.isDirectory(project)) {
            return Outcome.failed(FailedComponent.SERVICE, FailureType.CONFIGURATION, "the Meltano project directory "
                    + project + " does not exist");
        }
        Optional<String> denied = meltanoPolicy.violation(plan.meltano().projectDir(), plan.meltano().stateBackendDir(),
                prepared.env("").getOrDefault("PATH", System.getenv("PATH")), project);
        if (denied.isPresent()) {
            return Outcome.failed(FailedComponent.SERVICE, FailureType.CONFIGURATION, denied.get());
        }
        if (!plan.fullRefreshStreams().isEmpty()) {
            ctx.warnings.add("meltano run cannot refresh single streams; fullRefreshStreams " + plan.fullRefreshStreams()
                    + " were ignored");
            log.line("service", ctx.warnings.get(ctx.warnings.size() - 1));
        }
        try (RunDirectory runDir = RunDirectory.create(config.runner().runsDir(), plan.runId())) {
            Path root = Optional.ofNullable(plan.meltano().stateBackendDir()).map(Path::of)
                    .or(() -> config.meltano().stateBackendDir())
                    .orElse(runDir.path().resolve("state-backend")).toAbsolutePath().normalize();
            io.tapline.common.security.PrivateFiles.createDirectories(root);
            MeltanoBackendDirectory backend = mirror.open(root);

            // Export the stored state for Meltano.
            Snapshot before = writer.stateBefore(plan, ctx);
            String exported = before.exists() ? before.state().toStateJson() : null;
            if (exported != null) {
                backend.write(plan.stateId(), exported);
                log.line("service", "state of '" + plan.stateId() + "' exported to " + backend.dir(plan.stateId())
                        .resolve(MeltanoBackendDirectory.STATE_FILE));
            } else {
                backend.delete(plan.stateId());
                log.line("service", "no state stored for '" + plan.stateId() + "'; Meltano starts without state");
            }
            Outcome result = run(plan, ctx, prepared, project, root, exitCodes);
            return importState(plan, ctx, backend, exported, result);
        }
    }

    /** Starts {@code meltano run} and watches it; the outcome before the state import. */
    private Outcome run(RunPlan plan, ActiveRun ctx, PreparedRun prepared, Path project, Path root,
                        Map<String, Integer> exitCodes) {
        RunLog log = ctx.log;
        List<String> cmd = command(executable(), plan);
        Map<String, String> env = new LinkedHashMap<>(prepared.env(""));
        env.put("MELTANO_STATE_BACKEND_URI", "file://" + root);
        env.put("MELTANO_PROJECT_ROOT", project.toAbsolutePath().toString());
        env.put("NO_COLOR", "1");
        log.line("service", "starting: " + String.join(" ", cmd) + " (in " + project + ", state backend file://"
                + root + ")");
        Map<String, FailedComponent> plugins = new LinkedHashMap<>();
        plan.processes().forEach((prefix, c) -> plugins.put(c.name(), OutcomeClassifier.component(prefix)));
        AtomicReference<MeltanoOutput.Classified> error = new AtomicReference<>();
        AtomicReference<String> lastLine = new AtomicReference<>();
        Map<String, Long> records = new LinkedHashMap<>();
        ConnectorProcess p;
        try {
            p = ctx.supervisor.start(new io.tapline.connector.ProcessSpec("meltano", cmd, project, env), raw -> {
                String line = MeltanoOutput.strip(raw);
                // masked before it can become the run's reason (errorSummary, events, the service log),
                // as the run log masks what it writes
                String text = log.mask(line.startsWith("meltano | ") ? line.substring(10).trim() : line.trim());
                if (!text.isEmpty()) {
                    lastLine.set(MeltanoOutput.undecorated(text, plugins.keySet()));
                    MeltanoOutput.Classified c = MeltanoOutput.classify(text, plugins);
                    // The last specific error (a component failed, a plugin could not start) wins over
                    // generic error lines; Meltano's "Block run completed" summary is never the reason.
                    MeltanoOutput.Classified current = error.get();
                    if (c != null && (c.specific() || current == null || !current.specific())) {
                        error.set(c);
                    }
                    count(ctx, records, MeltanoOutput.recordCount(text, plan.extractor().name(), plugins.keySet()));
                }
                log.prefixed(line);
            });
        } catch (IOException e) {
            RunFailure f = OutcomeClassifier.startFailure("meltano", cmd.get(0), e);
            return Outcome.failed(FailedComponent.SERVICE, f.type, f.getMessage());
        }
        RunThreads.closeQuietly(p.stdin());
        Thread stdout = RunThreads.lines("meltano-stdout-" + plan.runId(), p.stdout(),
                line -> log.line("meltano", MeltanoOutput.strip(line)));
        watch.watch(ctx, poll -> RunThreads.waitFor(p, poll));
        RunThreads.join(stdout, 5000);
        int code = RunThreads.code(p);
        exitCodes.put("meltano", code);
        log.line("service", "meltano exited with code " + code);
        MeltanoOutput.Classified e = error.get();
        return OutcomeClassifier.meltano(ctx.stop.get(), code, e == null ? null : e.error(), lastLine.get());
    }

    /** Adds a record count to the run's reported per-stream counts. */
    private static void count(ActiveRun ctx, Map<String, Long> records, MeltanoOutput.RecordCount c) {
        if (c == null) {
            return;
        }
        synchronized (records) {
            records.merge(c.stream(), c.records(), Long::sum);
            Map<String, MessageCounts> streams = new LinkedHashMap<>();
            records.forEach((s, n) -> streams.put(s, new MessageCounts(n, 0, 0, 0, 0, 0, 0)));
            ctx.reportedCounts = new StreamCounts(streams, MessageCounts.ZERO, 0, 0);
        }
    }

    /**
     * Stores what Meltano wrote into {@code <root>/<state_id>/state.json}, when it changed and the
     * policy allows; returns the outcome, changed only when the state could not be stored.
     */
    private Outcome importState(RunPlan plan, ActiveRun ctx, MeltanoBackendDirectory backend, String exported,
                                Outcome result) throws IOException {
        RunLog log = ctx.log;
        Optional<String> written = backend.read(plan.stateId());
        if (written.isEmpty()) {
            log.line("service", "Meltano wrote no state for '" + plan.stateId() + "'");
            return result;
        }
        MeltanoState state;
        try {
            state = MeltanoState.fromStateJson(written.get());
        } catch (InvalidJsonException | InvalidStateException e) {
            ctx.warnings.add("the state.json Meltano left is invalid and was not stored: " + e.getMessage());
            log.line("service", ctx.warnings.get(ctx.warnings.size() - 1));
            return result.succeeded() ? Outcome.failed(FailedComponent.SERVICE, FailureType.CONNECTOR_PROTOCOL,
                    "the state Meltano wrote is invalid: " + e.getMessage()) : result;
        }
        if (exported != null && state.toStateJson().equals(exported)) {
            log.line("service", "state of '" + plan.stateId() + "' unchanged by Meltano");
            return result;
        }
        if (!result.succeeded() && plan.onSuccess()) {
            ctx.warnings.add("state commit policy ON_SUCCESS: the state Meltano wrote was discarded because the run did"
                    + " not succeed");
            log.line("service", "ON_SUCCESS: Meltano's state discarded; stored state unchanged");
            return result;
        }
        boolean[] owned = {true};
        boolean stored = DatabaseRetry.until(writer.endDeadline(), () -> {
            try {
                owned[0] = writer.storeState(plan, state, "meltano run");
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        });
        if (!stored) {
            log.line("service", "the state Meltano wrote could not be stored within tapline.runner.state-store-retry;"
                    + " not stored: " + written.get());
            return OutcomeClassifier.stateCommitted(result, written.get(), plan.onSuccess());
        }
        if (!owned[0]) {
            RunStateWriter.lost(ctx, "Meltano's state not stored");
            return Outcome.failed(FailedComponent.SERVICE, FailureType.LOST_INSTANCE, "the run was failed by another"
                    + " replica (heartbeat lost)");
        }
        log.line("service", "state of '" + plan.stateId() + "' imported from Meltano's state backend");
        return result;
    }

    /** The configured {@code meltano}; a relative path with {@code /} is taken from the service's directory. */
    private String executable() {
        String exe = config.meltano().executable().trim();
        return exe.indexOf('/') >= 0 && !exe.startsWith("/") ? Path.of(exe).toAbsolutePath().normalize().toString() : exe;
    }
}
