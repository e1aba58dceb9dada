package io.tapline.run.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.catalog.CatalogCache;
import io.tapline.common.json.Jsons;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.ProcessSpec;
import io.tapline.invocation.CatalogRules;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunFailure;
import io.tapline.invocation.RunPlan;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The catalog stage: the extractor's stored catalog, or one discovered with {@code --discover}
 * (with {@code --state} too when the tap has the {@code state} capability, as Meltano does), with
 * the pipeline's selection and metadata rules applied ({@link CatalogRules}).
 *
 * <p>A stored user catalog wins; otherwise the discovered catalog comes from the catalog cache
 * ({@link CatalogCache}: keyed on what can change it, discovered once cluster-wide), and
 * {@code --discover} runs only when nothing is cached under the key or the run asked for
 * {@code refreshCatalog}. The run records its catalog source ({@code user}, {@code cache},
 * {@code discovered}) in {@code pipeline_run.catalog_source} and says it in its log.
 *
 * <p>Discovery runs under the run's own process supervisor and {@link ProcessWatch}: a cancel, the
 * run's timeout, a service shutdown and the discovery deadline ({@code tapline.catalog.discovery-timeout},
 * 10 minutes by default) stop a {@code --discover} that hangs, even with its stdout open.
 */
@ApplicationScoped
public class CatalogProvider {

    private final ProcessWatch watch;
    private final Clock clock;

    private final io.tapline.common.security.RunAsUser runAs;
    private final CatalogCache cache;

    public CatalogProvider(ProcessWatch watch, Clock clock, io.tapline.common.security.RunAsUser runAs,
                           CatalogCache cache) {
        this.cache = cache;
        this.runAs = runAs;
        this.watch = watch;
        this.clock = clock;
    }

    /**
     * The catalog file for the extractor, if it takes one.
     *
     * @param extractorConfig the extractor's config file
     * @param stateFile the extractor's state file, or null
     * @throws RunFailure when discovery cannot start, fails or prints no catalog
     */
    Optional<Path> catalog(RunPlan plan, ActiveRun ctx, RunDirectory dir, PreparedRun prepared, Path extractorConfig,
                           Path stateFile) throws IOException {
        RunPlan.Component ex = plan.extractor();
        if (!ex.can("catalog") && !ex.can("properties")) {
            return Optional.empty();
        }
        ObjectNode catalog = ex.catalog();
        CatalogCache.Source source = CatalogCache.Source.USER;
        if (catalog == null && ex.can("discover")) {
            Optional<CatalogCache.Found> found = cached(plan, ctx, prepared, ex,
                    () -> discover(ctx, dir, prepared, ex, extractorConfig, stateFile));
            if (found.isEmpty()) {
                return Optional.empty();
            }
            catalog = found.get().catalog();
            source = found.get().source();
            if (source == CatalogCache.Source.CACHE) {
                ctx.log.line("service", "catalog: from the cache (discovered " + found.get().discoveredAt()
                        + "); --discover not run");
            }
        }
        if (catalog == null) {
            ctx.log.line("service", "the extractor declares 'catalog' but has no stored catalog and cannot discover");
            return Optional.empty();
        }
        if (source == CatalogCache.Source.USER) {
            ctx.log.line("service", "catalog: the extractor's stored catalog");
            // a cached or discovered catalog's source was recorded with its look-up or store
            cache.recordSource(ctx.id, source);
        }
        ObjectNode rules = catalog;
        return Optional.of(dir.write("catalog.json", out -> CatalogRules.writeApplied(rules, ex.select(), ex.metadata(), out)));
    }

    /**
     * The cached catalog, or one discovered once for every run of the extractor waiting at the same
     * time (cluster-wide); empty when the run was stopped meanwhile. The extractor's plugin id and
     * {@code pip_url} and the run's {@code refreshCatalog} come from the plan (read when the run
     * started), and the run's catalog source is recorded by the cache with the look-up or store.
     */
    private Optional<CatalogCache.Found> cached(RunPlan plan, ActiveRun ctx, PreparedRun prepared, RunPlan.Component ex,
                                                CatalogCache.Discovery discovery) throws IOException {
        CatalogCache.Target target = cache.target(plan.extractorId(), ex.name(), ex.pipUrl(), ex.executable(),
                ex.args(), ex.capabilities(), prepared.extractor(), ex.sensitive(),
                prepared.env().getOrDefault(ex.name(), java.util.Map.of()), prepared.secrets());
        boolean refresh = plan.refreshCatalog();
        if (refresh) {
            ctx.log.line("service", "refreshCatalog: discovering again");
        }
        return cache.obtainForRun(target, refresh, ctx.id, () -> stopped(ctx),
                () -> ctx.log.line("service", "another discovery of extractor " + ex.name() + " is running: waiting"
                        + " for its catalog"), discovery);
    }

    /** True once the run is asked to stop, or its deadline passed while it waited for another discovery. */
    private boolean stopped(ActiveRun ctx) {
        return ctx.stopDue(clock.instant());
    }

    /** Runs {@code --discover}; null when the run was stopped meanwhile (the caller sees the stop). */
    private ObjectNode discover(ActiveRun ctx, RunDirectory dir, PreparedRun prepared, RunPlan.Component ex,
                                Path extractorConfig, Path stateFile) throws IOException {
        ctx.log.line("service", "discovering the catalog");
        List<String> cmd = new ArrayList<>();
        cmd.add(ex.executable());
        cmd.addAll(ex.args());
        cmd.add("--config");
        cmd.add(extractorConfig.toString());
        if (stateFile != null) {
            cmd.add("--state");
            cmd.add(stateFile.toString());
        }
        cmd.add("--discover");
        Path discovered = dir.path().resolve("discovered.json");
        ConnectorProcess p;
        try {
            p = ctx.supervisor.start(new ProcessSpec("extractor", runAs.wrap(cmd, dir.path()), dir.path(), prepared.env(ex.name())),
                    line -> ctx.log.prefixed(MeltanoOutput.strip(line)));
        } catch (IOException e) {
            throw OutcomeClassifier.startFailure("extractor", ex.executable(), e);
        }
        RunThreads.closeQuietly(p.stdin());
        Thread copy = RunThreads.start("discover-" + ctx.id, () -> copy(p.stdout(), discovered));
        Duration limit = cache.discoveryTimeout();
        Instant deadline = clock.instant().plus(limit);
        watch.watch(ctx, poll -> RunThreads.waitFor(p, poll) && RunThreads.ended(copy, poll), deadline,
                "catalog discovery did not finish within " + limit.toSeconds() + " s");
        if (ctx.stop.get() != null) {
            // Stopped: the stop decides the outcome; the processes are being terminated.
            RunThreads.join(copy, 5000);
            return null;
        }
        int code = RunThreads.code(p);
        if (code != 0) {
            throw new RunFailure(FailedComponent.EXTRACTOR, FailureType.CONNECTOR_EXIT, "catalog discovery failed"
                    + " (exit code " + code + ")" + line(ctx));
        }
        JsonNode parsed;
        try {
            parsed = Jsons.MAPPER.readTree(discovered.toFile()); // from the file: no copy of its text in memory
        } catch (RuntimeException | IOException e) {
            parsed = null;
        }
        if (!(parsed instanceof ObjectNode o)) {
            throw new RunFailure(FailedComponent.EXTRACTOR, FailureType.CONNECTOR_PROTOCOL, "catalog discovery printed"
                    + " no JSON object");
        }
        return o;
    }

    private static String line(ActiveRun ctx) {
        String last = OutcomeClassifier.lastLine(ctx.log.tail(), "extractor");
        return last == null ? "" : ": " + OutcomeClassifier.excerpt(last);
    }

    private static void copy(InputStream in, Path to) {
        try (in; OutputStream out = Files.newOutputStream(to)) {
            in.transferTo(out);
        } catch (IOException ignored) {
            // the process was stopped; the exit code and the stop tell the story
        }
    }
}
