package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretMasker;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunPlan;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.PluginService;
import io.tapline.plugin.PluginType;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A plugin's {@code <executable> <args> --about --format=json}, which Meltano SDK taps, targets
 * and mappers answer with a JSON object naming their {@code capabilities} and {@code settings}:
 * run without a shell in a private directory of its own with stdin closed, its stdout kept up to
 * {@value #ABOUT_MAX} bytes, stopped at its time limit ({@link ConnectorProbe}).
 *
 * <p>{@link #learn} asks a plugin whose capabilities were not given (a Hub plugin of a meltano.yml
 * lists none) and stores the answer with the plugin ({@link PluginService#recordAbout}), as
 * Meltano's lock file keeps the Hub definition: the answer's capabilities (source {@code about}),
 * or, when the plugin exits non-zero, prints no JSON object or one without a capabilities list,
 * or does not answer within {@code tapline.catalog.about-timeout}, Meltano's conventional set for
 * its type (source {@code default}, with the reason kept for the plugin's warning).
 */
@ApplicationScoped
public class AboutProbe {

    /** Largest {@code --about} output kept, in bytes. */
    static final int ABOUT_MAX = 1 << 20;
    /** Most capabilities taken from an answer. */
    static final int MAX_CAPABILITIES = 100;
    private static final Pattern CAPABILITY = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

    /**
     * How {@code --about} ended.
     *
     * @param json the JSON object it printed (exit code 0), or null
     * @param failure why there is none ({@code --about failed (exit code 2): <last stderr line>}), or null
     * @param exitCode its exit code, or null when stopped at the limit
     * @param durationMs start to end, in milliseconds
     */
    public record Answer(JsonNode json, String failure, Integer exitCode, long durationMs) {
    }

    private final ConnectorProbe probe;
    private final PluginService plugins;
    private final TaplineConfig config;

    public AboutProbe(ConnectorProbe probe, PluginService plugins, TaplineConfig config) {
        this.probe = probe;
        this.plugins = plugins;
        this.config = config;
    }

    /**
     * Runs {@code command --about --format=json}.
     *
     * @param component the log prefix of its stderr (extractor, loader, mapper)
     * @param command the executable and the plugin's args
     * @param env the process's whole environment
     * @throws IOException when the process cannot start
     */
    public Answer run(String component, List<String> command, Map<String, String> env, Duration limit,
                      SecretMasker masker) throws IOException {
        return run(component, command, env, limit, masker, () -> false);
    }

    /** As {@link #run(String, List, Map, Duration, SecretMasker)}, stopped once {@code abort} says so (null then). */
    private Answer run(String component, List<String> command, Map<String, String> env, Duration limit,
                       SecretMasker masker, java.util.function.BooleanSupplier abort) throws IOException {
        try (RunDirectory dir = RunDirectory.create(config.runner().runsDir(), UUID.randomUUID())) {
            List<String> cmd = new ArrayList<>(command);
            cmd.addAll(List.of("--about", "--format=json"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ConnectorProbe.Result r = probe.run(component, cmd, dir.path(), env, limit, masker,
                    (in, stop) -> in.transferTo(new Bounded(out)), abort);
            if (r.aborted()) {
                return null;
            }
            JsonNode parsed = r.exitCode() != null && r.exitCode() == 0 ? parse(out.toString(StandardCharsets.UTF_8))
                    : null;
            if (parsed instanceof ObjectNode) {
                return new Answer(parsed, null, r.exitCode(), r.durationMs());
            }
            String why = r.timedOut() ? "--about did not answer within " + limit.toSeconds() + " s"
                    : r.exitCode() != null && r.exitCode() == 0 ? "--about --format=json printed no JSON object"
                    : "--about failed (exit code " + r.exitCode() + ")";
            return new Answer(null, why + PluginProbes.suffix(r), r.exitCode(), r.durationMs());
        }
    }

    /**
     * Asks a plugin whose capabilities are unknown ({@link RunPlan.Component#unknownCapabilities})
     * for them and stores what it said; a plugin whose capabilities are known is returned as it is.
     *
     * @param c the plugin as its snapshot holds it (executable as stored)
     * @param command the resolved executable and args to start
     * @param env the process's whole environment
     * @param actor who is recorded in the audit trail ({@code run:<id>}, null for the service)
     * @return the answer's capabilities and source (also when another caller stored first)
     */
    public PluginService.About learn(RunPlan.Component c, List<String> command, Map<String, String> env,
                                     SecretMasker masker, String actor) {
        return learn(c, command, env, masker, actor, () -> false);
    }

    /**
     * As {@link #learn(RunPlan.Component, List, Map, SecretMasker, String)}, for a run: the plugin is
     * stopped once {@code abort} says so (the run was cancelled or timed out), and then nothing is
     * stored and null returned.
     */
    public PluginService.About learn(RunPlan.Component c, List<String> command, Map<String, String> env,
                                     SecretMasker masker, String actor, java.util.function.BooleanSupplier abort) {
        PluginType type = PluginType.fromPath(c.type());
        Answer a;
        try {
            a = run(component(type), command, env, config.catalog().aboutTimeout(), masker, abort);
        } catch (IOException e) {
            a = new Answer(null, "could not start: " + masker.mask(String.valueOf(e.getMessage())), null, 0);
        }
        if (a == null) {
            return null;
        }
        PluginService.About about = interpret(type, a);
        plugins.recordAbout(type, c.name(), c.executable(), about, actor);
        return about;
    }

    /** What an answer means for a plugin of {@code type}: its capabilities, or the conventional ones and why. */
    static PluginService.About interpret(PluginType type, Answer a) {
        JsonNode caps = a.json() == null ? null : a.json().get("capabilities");
        if (a.json() != null && caps != null && caps.isArray()) {
            Set<String> names = new LinkedHashSet<>();
            for (JsonNode n : caps) {
                if (n.isTextual() && CAPABILITY.matcher(n.asText()).matches() && names.size() < MAX_CAPABILITIES) {
                    names.add(n.asText());
                }
            }
            return new PluginService.About(List.copyOf(names), CapabilitySource.ABOUT, Jsons.write(a.json()), null);
        }
        String why = a.json() != null ? "--about --format=json printed no \"capabilities\" list" : a.failure();
        return new PluginService.About(CapabilitySource.conventional(type), CapabilitySource.DEFAULT,
                a.json() == null ? null : Jsons.write(a.json()), why.length() > 1000 ? why.substring(0, 1000) + "..." : why);
    }

    /** The log prefix of a plugin type's process. */
    static String component(PluginType type) {
        return switch (type) {
            case EXTRACTORS -> "extractor";
            case LOADERS -> "loader";
            case MAPPERS -> "mapper";
            default -> type.id();
        };
    }

    private static JsonNode parse(String text) {
        try {
            return Jsons.read(text);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Keeps at most {@link #ABOUT_MAX} bytes, discarding the rest. */
    private static final class Bounded extends OutputStream {
        private final ByteArrayOutputStream into;

        Bounded(ByteArrayOutputStream into) {
            this.into = into;
        }

        @Override
        public void write(int b) {
            if (into.size() < ABOUT_MAX) {
                into.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            into.write(b, off, Math.max(0, Math.min(len, ABOUT_MAX - into.size())));
        }
    }
}
