package io.tapline.run.exec;

import io.tapline.common.db.DatabaseRetry;
import io.tapline.catalog.AboutProbe;
import io.tapline.state.store.Snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.SecretMasker;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.PluginService;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunFailure;
import io.tapline.invocation.RunInstalls;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPreparation;
import io.tapline.run.RunLog;
import io.tapline.state.StateService;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code singer} executor: the pipeline's connectors as processes on this replica. Stages:
 * the private run directory with each config file, the tap's state file exactly as Meltano writes
 * it (meltano-state.md §1a), the catalog ({@link CatalogProvider}), the extract-load
 * ({@link ExtractLoad}), the state commit under the pipeline's policy, and the transform step
 * ({@link TransformStep}) after a successful extract-load. A plugin that lists no capabilities is
 * asked for them after its installation, before anything starts ({@link AboutProbe#learn}).
 */
@ApplicationScoped
public class SingerExecutor implements PipelineExecutor {

    /** The {@code executor} value. */
    public static final String ID = "singer";
    private static final Logger LOG = Logger.getLogger(SingerExecutor.class);

    private final TaplineConfig config;
    private final Clock clock;
    private final RunPreparation preparation;
    private final RunStateWriter writer;
    private final CatalogProvider catalogs;
    private final ExtractLoad extractLoad;
    private final TransformStep transform;
    private final RunInstalls installs;
    private final AboutProbe abouts;

    public SingerExecutor(TaplineConfig config, Clock clock, RunPreparation preparation, RunStateWriter writer,
                          CatalogProvider catalogs, ExtractLoad extractLoad, TransformStep transform,
                          RunInstalls installs, AboutProbe abouts) {
        this.abouts = abouts;
        this.installs = installs;
        this.config = config;
        this.clock = clock;
        this.preparation = preparation;
        this.writer = writer;
        this.catalogs = catalogs;
        this.extractLoad = extractLoad;
        this.transform = transform;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public PreparedRun prepare(RunPlan plan) {
        return preparation.prepare(plan, true);
    }

    /**
     * The installation stage ({@link RunInstalls}: plugins with a {@code pip_url} not installed on
     * this replica are installed, their output in the run log under {@code install:<plugin>}),
     * then the executable check of {@link RunPreparation#checkExecutables}.
     */
    @Override
    public RunPlan ensureExecutables(RunPlan plan, ActiveRun ctx, PreparedRun prepared) {
        RunPlan ready;
        try {
            ready = installs.prepare(plan, ctx.log::line, ctx::stage, ctx.stop::get);
        } catch (RunInstalls.Failed e) {
            throw new RunFailure(e.component(), FailureType.INSTALLATION, e.getMessage());
        }
        activateEnvironments(plan, ready, prepared);
        preparation.checkExecutables(ready, prepared);
        return learnCapabilities(ready, ctx, prepared);
    }

    /**
     * Asks each plugin of the run whose capabilities were not given and that was not asked yet
     * ({@link RunPlan.Component#unknownCapabilities}) for them ({@link AboutProbe#learn}: stored
     * with the plugin), and returns the plan with what they said, so that this run already passes
     * {@code --state} and {@code --catalog} as the capabilities say.
     */
    private RunPlan learnCapabilities(RunPlan plan, ActiveRun ctx, PreparedRun prepared) {
        if (plan.processes().values().stream().noneMatch(RunPlan.Component::unknownCapabilities)) {
            return plan;
        }
        SecretMasker masker = new SecretMasker(prepared.secrets());
        java.util.function.UnaryOperator<RunPlan.Component> learn = c -> {
            if (!c.unknownCapabilities() || ctx.stop.get() != null) {
                return c;
            }
            List<String> cmd = new java.util.ArrayList<>();
            cmd.add(c.executable());
            cmd.addAll(c.args());
            PluginService.About a = abouts.learn(c, cmd, prepared.env(c.name()), masker, "run:" + plan.runId(),
                    () -> ctx.stopDue(clock.instant()));
            if (a == null) {
                return c; // the run was stopped meanwhile: it ends before anything else starts
            }
            String what = c.type() + "/" + c.name();
            ctx.log.line("service", a.source() == CapabilitySource.ABOUT
                    ? what + " lists no capabilities; it answered --about --format=json: "
                    + (a.capabilities().isEmpty() ? "none" : String.join(", ", a.capabilities())) + " (kept with the plugin)"
                    : what + " lists no capabilities and could not say (" + a.error() + "); Meltano's conventional"
                    + " capabilities apply: " + (a.capabilities().isEmpty() ? "none" : String.join(", ", a.capabilities())));
            return c.withCapabilities(a.capabilities(), a.source().id());
        };
        return new RunPlan(plan.runId(), plan.pipeline(), plan.stateId(), learn.apply(plan.extractor()),
                plan.mappers().stream().map(learn).toList(), learn.apply(plan.loader()), plan.transform(),
                plan.transformArgs(), plan.fullRefresh(), plan.fullRefreshStreams(), plan.strategy(), plan.onSuccess(),
                plan.timeoutSeconds(), plan.env(), plan.environment(), plan.meltano(), plan.extractorId(),
                plan.refreshCatalog());
    }

    /**
     * As Meltano runs a plugin from its virtual environment: for each plugin whose executable the
     * installation stage resolved into a managed environment ({@code <venv>/bin/<executable>}),
     * the process gets {@code VIRTUAL_ENV=<venv>} and {@code <venv>/bin} first on its {@code PATH}
     * (unless the plugin's own env sets them), so console scripts it calls come from the same
     * environment.
     */
    private static void activateEnvironments(RunPlan before, RunPlan ready, PreparedRun prepared) {
        Map<String, RunPlan.Component> old = before.processes();
        for (Map.Entry<String, RunPlan.Component> e : ready.processes().entrySet()) {
            RunPlan.Component was = old.get(e.getKey());
            RunPlan.Component now = e.getValue();
            if (was == null || now.executable().equals(was.executable())) {
                continue;
            }
            Path bin = Path.of(now.executable()).getParent();
            if (bin == null || bin.getParent() == null) {
                continue;
            }
            Map<String, String> own = prepared.env().computeIfAbsent(now.name(), k -> new java.util.LinkedHashMap<>());
            String path = own.getOrDefault("PATH", prepared.inherited().get("PATH"));
            own.putIfAbsent("VIRTUAL_ENV", bin.getParent().toString());
            if (!own.containsKey("PATH") || path == null || !path.startsWith(bin + ":")) {
                own.put("PATH", path == null || path.isEmpty() ? bin.toString() : bin + ":" + path);
            }
        }
    }

    @Override
    public Outcome execute(RunPlan plan, ActiveRun ctx, PreparedRun prepared, Map<String, Integer> exitCodes)
            throws Exception {
        RunDirectory dir = RunDirectory.create(config.runner().runsDir(), plan.runId());
        try {
            return execute(plan, ctx, prepared, exitCodes, dir);
        } finally {
            try {
                dir.close();
            } catch (IOException e) {
                LOG.warnf("Run directory %s could not be deleted: %s", dir.path(), e.getMessage());
            }
        }
    }

    private Outcome execute(RunPlan plan, ActiveRun ctx, PreparedRun prepared, Map<String, Integer> exitCodes,
                            RunDirectory dir) throws Exception {
        Snapshot before = writer.stateBefore(plan, ctx);
        Path extractorConfig = dir.write("extractor.config.json", Jsons.write(prepared.extractor()));
        Path stateFile = stateFile(plan, before.state(), dir, ctx.log);
        if (stateFile == null && !plan.fullRefresh() && !plan.extractor().can("state") && hasBookmarks(before.state())) {
            String from = plan.extractor().capabilitiesSource() == null ? ""
                    : " (capabilities from " + plan.extractor().capabilitiesSource() + ")";
            ctx.log.line("service", "state ID '" + plan.stateId() + "' has stored bookmarks, but the extractor does not"
                    + " declare the 'state' capability" + from + ": no --state is passed and it reads everything again");
            writer.stateNotPassed(plan);
        }
        List<String> tapCmd = ExtractLoad.command(plan.extractor(), extractorConfig);
        Optional<Path> catalog = catalogs.catalog(plan, ctx, dir, prepared, extractorConfig, stateFile);
        if (catalog.isPresent()) {
            tapCmd.add(plan.extractor().can("properties") && !plan.extractor().can("catalog") ? "--properties" : "--catalog");
            tapCmd.add(catalog.get().toString());
        }
        if (stateFile != null) {
            tapCmd.add("--state");
            tapCmd.add(stateFile.toString());
        }
        ActiveRun.Stop early = ctx.stop.get();
        if (early != null) {
            ctx.log.line("service", "stopped before any process started: " + early.message());
            return OutcomeClassifier.stopped(early, FailedComponent.SERVICE, "");
        }

        ExtractLoad.Result r = extractLoad.run(plan, ctx, dir, prepared, tapCmd);
        exitCodes.putAll(r.exitCodes());
        StateCheckpointer checkpointer = r.checkpointer();
        if (checkpointer.emptyLines() > 0) {
            ctx.warnings.add("the loader emitted " + checkpointer.emptyLines() + " empty state(s) {}; they were not"
                    + " stored, so the existing bookmarks were kept");
        }
        if (checkpointer.invalidLines() > 0) {
            ctx.warnings.add(checkpointer.invalidLines() + " line(s) on the loader's stdout were not valid state"
                    + " (logged, never stored)");
        }
        Outcome el = OutcomeClassifier.extractLoad(r.facts());
        ctx.stage("extract-load", ctx.startedAt, clock.instant(), el.status().name());
        Outcome o = OutcomeClassifier.stateCommitted(el, commitState(plan, ctx, checkpointer, el), plan.onSuccess());
        if (!o.succeeded() || plan.transform() == null) {
            if (plan.transform() != null) {
                ctx.log.line("service", "transform skipped: extract-load did not succeed");
            }
            return o;
        }
        return transform.run(plan, ctx, dir, prepared, exitCodes);
    }

    /**
     * Commits the acknowledged state under the run's policy: CHECKPOINT stored every line already
     * and stores the rest now; ON_SUCCESS stores now when the extract-load succeeded, or never.
     * Retried until {@code tapline.runner.state-store-retry}.
     *
     * @return the acknowledged state that could not be stored (compact JSON), or null
     */
    private String commitState(RunPlan plan, ActiveRun ctx, StateCheckpointer checkpointer, Outcome el) {
        if (plan.onSuccess() && !el.succeeded()) {
            if (checkpointer.hasPending()) {
                ctx.warnings.add("state commit policy ON_SUCCESS: the state acknowledged by the loader was discarded"
                        + " because the run did not succeed");
                ctx.log.line("service", "ON_SUCCESS: acknowledged state discarded; stored state unchanged");
            }
            return null;
        }
        DatabaseRetry.until(writer.endDeadline(), () -> writer.persist(plan, ctx, checkpointer));
        if (!checkpointer.hasPending()) {
            return null;
        }
        String unstored = Jsons.write(checkpointer.lastAccepted());
        ctx.log.line("service", "the state acknowledged by the loader could not be stored within"
                + " tapline.runner.state-store-retry; not stored: " + unstored);
        ctx.warnings.add("the acknowledged state " + OutcomeClassifier.excerpt(unstored) + " was not stored");
        return unstored;
    }

    /** Whether a state holds bookmarks Meltano would pass to a tap ({@link MeltanoState#tapStateFile}). */
    private static boolean hasBookmarks(MeltanoState state) {
        try {
            return state.tapStateFile().isPresent();
        } catch (StateConflictException e) {
            return true;
        }
    }

    /** Writes the tap's state file, or returns null (no state capability, full refresh, no state). */
    private static Path stateFile(RunPlan plan, MeltanoState state, RunDirectory dir, RunLog log) throws IOException {
        if (plan.fullRefresh()) {
            log.line("service", "full refresh: the extractor gets no state");
            return null;
        }
        if (!plan.extractor().can("state")) {
            log.line("service", "the extractor does not declare the 'state' capability: no state is passed");
            return null;
        }
        Optional<String> file = tapState(state, plan.fullRefreshStreams(), log);
        return file.isPresent() ? dir.write("state.json", file.get()) : null;
    }

    private static Optional<String> tapState(MeltanoState state, List<String> fullRefreshStreams, RunLog log) {
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
}
