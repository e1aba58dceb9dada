package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.audit.AuditService;
import io.tapline.catalog.api.TestResponse;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ConnectorFailedException;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.CatalogRules;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunPlan;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginType;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code POST /api/v1/plugins/{type}/{name}:test} and {@code GET .../{name}/about}.
 *
 * <p>An extractor is tested as {@code meltano config <plugin> test} does: it runs with its resolved
 * config (and its catalog when it takes one: the stored one, else the cached or a fresh discovery,
 * with select/metadata applied) and no state; the test passes at the first RECORD, after which the
 * tap's process tree is stopped; it fails when the tap exits first (with its last stderr line,
 * masked) or prints no RECORD within {@code tapline.catalog.test-timeout}. A loader passes when it
 * starts: {@code --about --format=json} exits 0 with a JSON object (with the {@code about}
 * capability), else the target started with its config and an empty input exits 0. No state is
 * read or written; the audit trail gets {@code plugin.test}.
 */
@ApplicationScoped
public class ConnectionTest {

    private final PluginProbes probes;
    private final ConnectorProbe probe;
    private final CatalogCache cache;
    private final AuditService audit;
    private final TaplineConfig config;
    private final AboutProbe abouts;

    public ConnectionTest(PluginProbes probes, ConnectorProbe probe, CatalogCache cache, AuditService audit,
                          TaplineConfig config, AboutProbe abouts) {
        this.abouts = abouts;
        this.probes = probes;
        this.probe = probe;
        this.cache = cache;
        this.audit = audit;
        this.config = config;
    }

    /**
     * Tests a plugin.
     *
     * @param timeoutSeconds a shorter limit than {@code tapline.catalog.test-timeout}, or null
     * @throws DomainException 400 for a plugin type other than extractors and loaders; 404; 422
     *     unresolvable config or missing executable
     */
    public TestResponse test(String type, String name, Integer timeoutSeconds, String actor) {
        PluginType t = type(type);
        Plugin p = probes.plugin(t, name);
        RunPlan.Component c = RunPlan.Component.of(p);
        PluginProbes.Prepared prep = probes.prepare(p, c);
        Duration limit = PluginProbes.limit(config.catalog().testTimeout(), timeoutSeconds);
        TestResponse r;
        try {
            r = t == PluginType.EXTRACTORS ? extractor(prep, limit, actor) : loader(prep, limit);
        } catch (Discovery e) {
            r = new TestResponse(t.id() + "/" + name, false, e.getMessage(), null, 0, null);
        } catch (IOException e) {
            r = new TestResponse(t.id() + "/" + name, false, "could not start: " + prep.masker().mask(e.getMessage()),
                    null, 0, null);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("ok", r.ok());
        details.put("durationMs", r.durationMs());
        if (!r.ok()) {
            details.put("message", r.message());
        }
        audit.record(actor, "plugin.test", "plugin", t.id() + "/" + name, details);
        return r;
    }

    /**
     * The connector's {@code --about --format=json}. A plugin whose capabilities were not given is
     * asked now (and its answer stored, {@link AboutProbe#learn}).
     *
     * @throws DomainException 400 without the {@code about} capability; 502 when it fails or
     *     prints no JSON object
     */
    public JsonNode about(String type, String name) {
        PluginType t = type(type);
        Plugin p = probes.plugin(t, name);
        RunPlan.Component c = RunPlan.Component.of(p);
        if (!c.unknownCapabilities() && !c.can("about")) {
            throw InvalidInputException.field("capabilities", t.id() + "/" + name + " does not declare 'about'");
        }
        PluginProbes.Prepared prep = probes.prepare(p, c);
        if (prep.learned() != null) {
            if (prep.learned().about() == null) {
                throw new ConnectorFailedException(prep.learned().error());
            }
            return Jsons.read(prep.learned().about());
        }
        try {
            AboutProbe.Answer a = runAbout(prep, config.catalog().testTimeout());
            if (a.json() == null) {
                throw new ConnectorFailedException(a.failure());
            }
            return a.json();
        } catch (IOException e) {
            throw new ConnectorFailedException("could not start: "
                    + prep.masker().mask(e.getMessage()));
        }
    }

    private TestResponse extractor(PluginProbes.Prepared prep, Duration limit, String actor) throws IOException {
        RunPlan.Component c = prep.component();
        String plugin = "extractors/" + c.name();
        try (RunDirectory dir = RunDirectory.create(config.runner().runsDir(), UUID.randomUUID())) {
            Path cfg = dir.write("extractor.config.json", Jsons.write(prep.resolved().config()));
            List<String> cmd = new ArrayList<>(prep.command());
            cmd.addAll(List.of("--config", cfg.toString()));
            if (c.can("catalog") || c.can("properties")) {
                ObjectNode catalog = catalog(prep, dir, cfg, limit, actor);
                if (catalog != null) {
                    Path file = dir.write("catalog.json", Jsons.write(CatalogRules.apply(catalog, c.select(),
                            c.metadata())));
                    cmd.add(c.can("properties") && !c.can("catalog") ? "--properties" : "--catalog");
                    cmd.add(file.toString());
                }
            }
            AtomicReference<String> stream = new AtomicReference<>();
            ConnectorProbe.Result r = probe.run("extractor", cmd, dir.path(), prep.resolved().processEnv(), limit,
                    prep.masker(), (in, stop) -> {
                        BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                        for (String line; (line = lines.readLine()) != null; ) {
                            String s = recordStream(line);
                            if (s != null) {
                                stream.set(s);
                                stop.run();
                                return;
                            }
                        }
                    });
            if (r.stopped()) {
                return new TestResponse(plugin, true, "the tap printed a RECORD of stream '" + stream.get()
                        + "'; it was stopped", null, r.durationMs(), null);
            }
            String why = r.timedOut() ? "no RECORD within " + limit.toSeconds() + " s; the tap was stopped"
                    : r.exitCode() == 0 ? "the tap exited without printing a RECORD"
                    : "the tap failed (exit code " + r.exitCode() + ")";
            return new TestResponse(plugin, false, why + PluginProbes.suffix(r), r.exitCode(), r.durationMs(), null);
        }
    }

    /** The stored catalog, else the cached one, else one discovered now under the test's limit; null when stopped. */
    private ObjectNode catalog(PluginProbes.Prepared prep, RunDirectory dir, Path cfg, Duration limit, String actor)
            throws IOException {
        RunPlan.Component c = prep.component();
        if (c.catalog() != null) {
            return c.catalog();
        }
        if (!c.can("discover")) {
            return null;
        }
        CatalogCache.Target target = cache.target(c.name(), prep.executable(), c.args(), c.capabilities(),
                prep.resolved().config(), c.sensitive(), prep.resolved().pluginEnv(), prep.resolved().secrets());
        return cache.obtain(target, false, "api:" + actor, () -> false, () -> { }, () -> {
            List<String> cmd = new ArrayList<>(prep.command());
            cmd.addAll(List.of("--config", cfg.toString(), "--discover"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ConnectorProbe.Result r = probe.run("extractor", cmd, dir.path(), prep.resolved().processEnv(), limit,
                    prep.masker(), (in, stop) -> in.transferTo(out));
            JsonNode parsed = r.exitCode() != null && r.exitCode() == 0 ? parse(out.toString(StandardCharsets.UTF_8))
                    : null;
            if (!(parsed instanceof ObjectNode o)) {
                throw new Discovery(r.timedOut() ? "catalog discovery did not finish within " + limit.toSeconds()
                        + " s; the tap was stopped" + PluginProbes.suffix(r)
                        : "catalog discovery failed (exit code " + r.exitCode() + ")" + PluginProbes.suffix(r));
            }
            return o;
        }).map(CatalogCache.Found::catalog).orElse(null);
    }

    private TestResponse loader(PluginProbes.Prepared prep, Duration limit) throws IOException {
        RunPlan.Component c = prep.component();
        String plugin = "loaders/" + c.name();
        if (c.can("about")) {
            AboutProbe.Answer a = runAbout(prep, limit);
            return new TestResponse(plugin, a.json() != null, a.json() != null ? "--about answered" : a.failure(),
                    a.exitCode(), a.durationMs(), a.json());
        }
        try (RunDirectory dir = RunDirectory.create(config.runner().runsDir(), UUID.randomUUID())) {
            Path cfg = dir.write("loader.config.json", Jsons.write(prep.resolved().config()));
            List<String> cmd = new ArrayList<>(prep.command());
            cmd.addAll(List.of("--config", cfg.toString()));
            ConnectorProbe.Result r = probe.run("loader", cmd, dir.path(), prep.resolved().processEnv(), limit,
                    prep.masker(), (in, stop) -> in.transferTo(OutputDiscard.INSTANCE));
            boolean ok = r.exitCode() != null && r.exitCode() == 0;
            String msg = ok ? "the target started and ended on an empty input"
                    : r.timedOut() ? "the target did not end on an empty input within " + limit.toSeconds() + " s"
                    : "the target failed (exit code " + r.exitCode() + ")";
            return new TestResponse(plugin, ok, msg + (ok ? "" : PluginProbes.suffix(r)), r.exitCode(),
                    r.durationMs(), null);
        }
    }

    private AboutProbe.Answer runAbout(PluginProbes.Prepared prep, Duration limit) throws IOException {
        String component = prep.component().type().equals("extractors") ? "extractor" : "loader";
        return abouts.run(component, prep.command(), prep.resolved().processEnv(), limit, prep.masker());
    }

    /** The stream of a Singer RECORD line, else null. */
    static String recordStream(String line) {
        if (!line.contains("RECORD")) {
            return null;
        }
        JsonNode n = parse(line);
        return n != null && "RECORD".equals(n.path("type").asText()) ? n.path("stream").asText() : null;
    }

    private static JsonNode parse(String text) {
        try {
            return Jsons.read(text);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static PluginType type(String type) {
        PluginType t = PluginType.fromPath(type);
        if (t != PluginType.EXTRACTORS && t != PluginType.LOADERS) {
            throw InvalidInputException.field("type", "only extractors and loaders can be tested");
        }
        return t;
    }

    /** A failed discovery under a connection test: the test fails with this message. */
    static final class Discovery extends IOException {
        Discovery(String message) {
            super(message);
        }
    }

    /** Discards what it is given. */
    private static final class OutputDiscard extends java.io.OutputStream {
        static final OutputDiscard INSTANCE = new OutputDiscard();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }
}
