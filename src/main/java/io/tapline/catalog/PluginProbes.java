package io.tapline.catalog;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.error.UnprocessableException;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.common.security.SecretMasker;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPreparation;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginService;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.PluginEnvironment;
import io.tapline.plugin.install.PluginInstaller;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the catalog endpoints need before they start a connector, prepared as a run prepares it:
 * the plugin (404 when unknown), its config and env resolved by {@link RunPreparation} (422 when a
 * reference cannot be resolved), its executable resolved into its managed environment when it has
 * a {@code pip_url} (422 when not installed on this replica) and checked against
 * {@code tapline.security.executable-dirs} (422).
 */
@ApplicationScoped
public class PluginProbes {

    /**
     * A plugin ready to start.
     *
     * @param component the plugin as a run would see it
     * @param executable the executable to start
     * @param resolved its resolved config and environment
     * @param masker masks its secrets
     * @param learned what the plugin answered about itself just now, when its capabilities were
     *     not given and it was asked before this start ({@link AboutProbe#learn}); else null
     */
    public record Prepared(RunPlan.Component component, String executable, RunPreparation.Resolved resolved,
                           SecretMasker masker, PluginService.About learned) {

        /** The executable and the plugin's args. */
        public List<String> command() {
            List<String> cmd = new ArrayList<>();
            cmd.add(executable);
            cmd.addAll(component.args());
            return cmd;
        }
    }

    private final CatalogStore store;
    private final RunPreparation preparation;
    private final ExecutablePolicy executables;
    private final TaplineConfig config;
    private final AboutProbe abouts;

    public PluginProbes(CatalogStore store, RunPreparation preparation, ExecutablePolicy executables,
                        TaplineConfig config, AboutProbe abouts) {
        this.abouts = abouts;
        this.store = store;
        this.preparation = preparation;
        this.executables = executables;
        this.config = config;
    }

    /** The plugin, or 404. */
    public Plugin plugin(PluginType type, String name) {
        return store.plugin(type, name).orElseThrow(() -> new NotFoundException("Plugin", type.id() + "/" + name));
    }

    /**
     * Resolves the plugin for a start. A plugin whose capabilities were not given is asked for
     * them first ({@link AboutProbe#learn}), so the start uses them.
     *
     * @throws DomainException 422 for an unresolvable reference, a plugin not installed on this
     *     replica, or a missing or disallowed executable
     */
    public Prepared prepare(Plugin p, RunPlan.Component c) {
        return prepare(p, c, true);
    }

    /**
     * As {@link #prepare(Plugin, RunPlan.Component)}; with {@code learn} false a plugin whose
     * capabilities are unknown is not asked (nothing is started: for reads such as {@code /streams}).
     */
    public Prepared prepare(Plugin p, RunPlan.Component c, boolean learn) {
        RunPreparation.Resolved resolved;
        try {
            resolved = preparation.resolvePlugin(c);
        } catch (IllegalArgumentException e) {
            throw new UnprocessableException(e.getMessage());
        }
        String exe = c.executable();
        if (p.pipUrl != null) {
            PluginEnvironment env = PluginEnvironment.of(config.plugins().dir(), p.type.id(), p.name);
            if (env.marker().isEmpty()) {
                throw new UnprocessableException(p.type.id() + "/" + p.name + " is not installed"
                        + " on this replica: POST /api/v1/plugins/" + p.type.id() + "/" + p.name + ":install first");
            }
            exe = PluginInstaller.executable(env, exe);
        }
        String component = p.type == PluginType.EXTRACTORS ? "extractor" : "loader";
        executables.violation(component, exe, resolved.processEnv().get("PATH"), Path.of("").toAbsolutePath())
                .ifPresent(v -> {
                    throw new UnprocessableException(v);
                });
        SecretMasker masker = new SecretMasker(resolved.secrets());
        if (learn && c.unknownCapabilities()) {
            List<String> cmd = new ArrayList<>();
            cmd.add(exe);
            cmd.addAll(c.args());
            PluginService.About learned = abouts.learn(c, cmd, resolved.processEnv(), masker, null);
            return new Prepared(c.withCapabilities(learned.capabilities(), learned.source().id()), exe, resolved,
                    masker, learned);
        }
        return new Prepared(c, exe, resolved, masker, null);
    }

    /** {@code setting}, or {@code seconds} when given and shorter. */
    static Duration limit(Duration setting, Integer seconds) {
        if (seconds == null) {
            return setting;
        }
        if (seconds < 1) {
            throw InvalidInputException.field("timeoutSeconds", "must be a positive number of seconds");
        }
        Duration asked = Duration.ofSeconds(seconds);
        return asked.compareTo(setting) < 0 ? asked : setting;
    }

    /** {@code ": <last stderr line>"}, or "". */
    static String suffix(ConnectorProbe.Result r) {
        String last = r.lastLine();
        return last == null ? "" : ": " + (last.length() > 500 ? last.substring(0, 500) + "..." : last);
    }
}
