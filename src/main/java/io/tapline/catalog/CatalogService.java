package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.audit.AuditService;
import io.tapline.catalog.api.StreamsResponse;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.ConflictException.Reason;
import io.tapline.common.error.ConnectorFailedException;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.UnprocessableException;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunPlan;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginType;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The extractor catalog endpoints: {@code GET .../extractors/{name}/streams} (the cached or stored
 * catalog with the current select/metadata rules applied at read time) and
 * {@code POST .../extractors/{name}:discover} (runs {@code --discover} now, through the same
 * {@link CatalogCache} a run uses, so runs then reuse the catalog). Processes are started by
 * {@link PluginProbes}; audit entries {@code catalog.discover}.
 */
@ApplicationScoped
public class CatalogService {

    private final CatalogCache cache;
    private final CatalogStore store;
    private final PluginProbes probes;
    private final ConnectorProbe probe;
    private final AuditService audit;
    private final TaplineConfig config;
    private final StreamsViews views;

    public CatalogService(CatalogCache cache, CatalogStore store, PluginProbes probes, ConnectorProbe probe,
                          AuditService audit, TaplineConfig config, StreamsViews views) {
        this.views = views;
        this.cache = cache;
        this.store = store;
        this.probes = probes;
        this.probe = probe;
        this.audit = audit;
        this.config = config;
    }

    /**
     * The extractor's streams as the tap will get them: a {@link StreamsResponse} as JSON bytes,
     * rendered once per catalog version ({@link StreamsViews}); on a kept view neither the cached
     * catalog nor the rules are read again.
     *
     * @throws DomainException 404 unknown extractor; 409 {@code no-catalog} when it has no stored
     *     catalog and none was discovered
     */
    public byte[] streams(String name) {
        Plugin p = probes.plugin(PluginType.EXTRACTORS, name);
        if (p.catalog != null) {
            return views.get(new StreamsViews.Key(p.id, p.name, p.version, p.updatedAt, null, null, true), () -> {
                RunPlan.Component c = RunPlan.Component.of(p);
                return new StreamsResponse(name, CatalogCache.Source.USER.id(), null, true,
                        StreamsView.of(c.catalog(), c.select(), c.metadata()));
            });
        }
        RunPlan.Component c = RunPlan.Component.of(p);
        String key = null;
        try {
            key = target(probes.prepare(p, c, false)).key();
        } catch (UnprocessableException e) {
            // unresolvable config: show the last discovered catalog, marked not current
        }
        CatalogStore.Header h = store.header(p.id).orElseThrow(() -> new ConflictException(Reason.NO_CATALOG,
                "extractor " + name + " has no stored catalog and was not discovered yet: POST /api/v1/plugins/"
                        + "extractors/" + name + ":discover (or run a pipeline that uses it)"));
        boolean current = h.cacheKey().equals(key);
        return views.get(new StreamsViews.Key(p.id, p.name, p.version, p.updatedAt, h.cacheKey(), h.discoveredAt(),
                current), () -> {
                    ExtractorCatalog latest = store.latest(p.id).orElseThrow(() -> new ConflictException(
                            Reason.NO_CATALOG, "extractor " + name + " has no stored catalog any more"));
                    return view(name, c, Jsons.readObject(latest.catalog), latest.discoveredAt,
                            latest.cacheKey.equals(h.cacheKey()) && current);
                });
    }

    /**
     * Runs {@code --discover} now and stores the catalog (replacing the cached one).
     *
     * @param timeoutSeconds a shorter limit than {@code tapline.catalog.discovery-timeout}, or null
     * @throws DomainException 404 unknown extractor; 400 when it cannot discover; 422 unresolvable
     *     config or a missing executable; 502 {@code connector-failed} when the discovery fails or
     *     passes its limit
     */
    public byte[] discover(String name, Integer timeoutSeconds, String actor) {
        Plugin p = probes.plugin(PluginType.EXTRACTORS, name);
        RunPlan.Component c = RunPlan.Component.of(p);
        if (!c.unknownCapabilities() && !c.can("discover")) {
            throw InvalidInputException.field("capabilities", "extractor " + name + " does not declare 'discover'");
        }
        PluginProbes.Prepared prep = probes.prepare(p, c);
        if (!prep.component().can("discover")) {
            throw InvalidInputException.field("capabilities", "extractor " + name + " does not declare 'discover' ("
                    + "capabilities from " + prep.component().capabilitiesSource() + ")");
        }
        Duration limit = PluginProbes.limit(config.catalog().discoveryTimeout(), timeoutSeconds);
        CatalogCache.Found found;
        CatalogCache.Target t = target(prep);
        try {
            found = cache.obtain(t, true, "api:" + actor, () -> false, () -> { }, () -> runDiscover(prep, limit))
                    .orElseThrow();
        } catch (IOException e) {
            throw new ConnectorFailedException("catalog discovery could not run: "
                    + prep.masker().mask(e.getMessage()));
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("streams", CatalogCache.streams(found.catalog()));
        audit.record(actor, "catalog.discover", "plugin", "extractors/" + name, details);
        return views.put(new StreamsViews.Key(p.id, p.name, p.version, p.updatedAt, t.key(), found.discoveredAt(), true),
                view(name, c, found.catalog(), found.discoveredAt(), true));
    }

    /** Runs {@code --discover} under {@code limit}; the catalog it printed. */
    private ObjectNode runDiscover(PluginProbes.Prepared prep, Duration limit) throws IOException {
        try (RunDirectory dir = RunDirectory.create(config.runner().runsDir(), UUID.randomUUID())) {
            Path cfg = dir.write("extractor.config.json", Jsons.write(prep.resolved().config()));
            List<String> cmd = new ArrayList<>(prep.command());
            cmd.addAll(List.of("--config", cfg.toString(), "--discover"));
            Path out = dir.path().resolve("discovered.json");
            ConnectorProbe.Result r = probe.run("extractor", cmd, dir.path(), prep.resolved().processEnv(), limit,
                    prep.masker(), (in, stop) -> {
                        try (OutputStream o = Files.newOutputStream(out)) {
                            in.transferTo(o);
                        }
                    });
            if (r.timedOut()) {
                throw new ConnectorFailedException("catalog discovery did not finish within "
                        + limit.toSeconds() + " s; the tap was stopped" + PluginProbes.suffix(r));
            }
            if (r.exitCode() == null || r.exitCode() != 0) {
                throw new ConnectorFailedException("catalog discovery failed (exit code "
                        + r.exitCode() + ")" + PluginProbes.suffix(r));
            }
            JsonNode parsed;
            try {
                parsed = Jsons.MAPPER.readTree(out.toFile()); // from the file: no copy of its text in memory
            } catch (RuntimeException | IOException e) {
                parsed = null;
            }
            if (!(parsed instanceof ObjectNode o)) {
                throw new ConnectorFailedException("catalog discovery printed no JSON object");
            }
            return o;
        }
    }

    private CatalogCache.Target target(PluginProbes.Prepared prep) {
        RunPlan.Component c = prep.component();
        return cache.target(c.name(), prep.executable(), c.args(), c.capabilities(), prep.resolved().config(),
                c.sensitive(), prep.resolved().pluginEnv(), prep.resolved().secrets());
    }

    private static StreamsResponse view(String name, RunPlan.Component c, ObjectNode catalog,
                                        java.time.OffsetDateTime at, boolean current) {
        return new StreamsResponse(name, CatalogCache.Source.CACHE.id(), at, current,
                StreamsView.of(catalog, c.select(), c.metadata()));
    }
}
