package io.tapline.project.model;

import io.tapline.common.api.Names;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.Conventions;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument;
import io.tapline.project.meltano.MeltanoDocument.Environment;
import io.tapline.project.meltano.MeltanoDocument.PluginOverlay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environments of a meltano.yml as one import uses them: which environment its pipelines are
 * made for ({@code ?environment=}, else {@code default_environment}, else {@code dev}; it must be
 * one of {@code environments:} when there are any; {@value #ALL} for every environment), the
 * overlays of every environment by plugin (each is stored, whichever environment is imported), and
 * the {@code env} and expanded {@code state_id_suffix} of each environment a pipeline runs in.
 */
final class EnvironmentChoice {

    /**
     * An environment's {@code env} and expanded {@code state_id_suffix}.
     *
     * @param env variables, in document order
     * @param suffix the suffix, or null when none (or not expandable)
     */
    record Settings(Map<String, String> env, String suffix) {
    }

    /**
     * One plugin's overlay in the chosen environment.
     *
     * @param path its YAML path, e.g. {@code environments[0].config.plugins.extractors[1]}
     * @param overlay the overlay
     */
    record Overlay(String path, PluginOverlay overlay) {
    }

    /** The {@code environment} that asks for the pipelines of every environment. */
    static final String ALL = "*";

    private final Issues issues;
    private final boolean all;
    /** Defined environments by name (the last entry of a name given twice), in document order. */
    private final Map<String, Environment> byName = new LinkedHashMap<>();
    private final List<String> names = new ArrayList<>();
    /** The YAML index of each entry of {@link #names}. */
    private final List<Integer> indices = new ArrayList<>();
    private final Map<String, Settings> settings = new HashMap<>();
    private final String chosen;
    private final String defaultEnvironment;
    private final Map<String, Map<PluginType, Map<String, Overlay>>> overlays = new LinkedHashMap<>();

    private EnvironmentChoice(MeltanoDocument doc, String requested, Issues issues) {
        this.issues = issues;
        this.defaultEnvironment = doc.defaultEnvironment();
        this.all = ALL.equals(requested);
        if (all) {
            requested = null;
        }
        List<Environment> envs = doc.environments();
        for (int i = 0; i < envs.size(); i++) {
            Environment e = envs.get(i);
            if (e == null) {
                continue;
            }
            String path = "environments[" + i + "]";
            issues.check(path + ".name", () -> Names.environment("name", e.name()));
            if (byName.containsKey(e.name())) {
                issues.error(path + ".name", "environment '" + e.name() + "' is defined twice");
            }
            names.add(e.name());
            indices.add(i);
            byName.put(e.name(), e);
        }
        chosen = requested != null ? requested : defaultEnvironment != null ? defaultEnvironment : "dev";
        if (requested != null) {
            String asked = requested;
            issues.check("environment", () -> Names.environment("environment", asked));
        }
        if (!byName.isEmpty() && !byName.containsKey(chosen)) {
            issues.error(requested != null ? "environment" : "default_environment", "environment '" + chosen
                    + "' is not defined under environments (" + String.join(", ", names) + ")");
        }
        if (defaultEnvironment != null && !byName.isEmpty() && !byName.containsKey(defaultEnvironment)
                && requested != null) {
            issues.error("default_environment", "environment '" + defaultEnvironment
                    + "' is not defined under environments");
        }
    }

    /**
     * Chooses the environment and reads it: its keys Tapline does not use are reported, and its
     * overlays, env and suffix are checked.
     *
     * @param requested the environment asked for, or null for {@code default_environment}
     */
    static EnvironmentChoice choose(MeltanoDocument doc, String requested, Issues issues) {
        EnvironmentChoice c = new EnvironmentChoice(doc, requested, issues);
        c.report();
        c.byName.forEach((name, e) -> c.overlays.put(name, c.overlaysOf(e, c.pathOf(name))));
        if (c.byName.containsKey(c.chosen)) {
            c.settingsOf(c.chosen);
        } else {
            c.settings.put(c.chosen, new Settings(new LinkedHashMap<>(), null));
        }
        if (c.all) {
            c.byName.keySet().forEach(c::settingsOf);
        }
        return c;
    }

    /** The environment the import is read for: the one asked for, else the default one (also with {@value #ALL}). */
    String chosen() {
        return chosen;
    }

    /** What the import was asked for: {@value #ALL}, or the chosen environment. */
    String requested() {
        return all ? ALL : chosen;
    }

    /**
     * The environments pipelines are made for: every one of {@code environments:} (the chosen one
     * first) with {@value #ALL}, else the chosen one.
     */
    List<String> pipelineEnvironments() {
        if (!all || byName.isEmpty()) {
            return List.of(chosen);
        }
        List<String> out = new ArrayList<>();
        out.add(chosen);
        byName.keySet().stream().filter(n -> !n.equals(chosen)).forEach(out::add);
        return out;
    }

    /** {@code default_environment}, or null. */
    String defaultEnvironment() {
        return defaultEnvironment;
    }

    /** The names under {@code environments:}, in order (a name given twice, twice). */
    List<String> names() {
        return List.copyOf(names);
    }

    /** True when {@code name} is defined under {@code environments:}. */
    boolean defines(String name) {
        return byName.containsKey(name);
    }

    /** Every environment's overlays, by environment name (document order), type and plugin name. */
    Map<String, Map<PluginType, Map<String, Overlay>>> overlays() {
        return overlays;
    }

    /** The env and suffix of the chosen environment. */
    Settings active() {
        return settings.get(chosen);
    }

    /**
     * The env and expanded suffix of an environment; read (and checked, errors at its YAML paths)
     * once. An undefined name has neither.
     */
    Settings settingsOf(String name) {
        Settings known = settings.get(name);
        if (known != null) {
            return known;
        }
        Environment e = byName.get(name);
        String path = pathOf(name);
        if (e != null) {
            issues.reportScope(path);
        }
        Map<String, String> env = e == null || e.env() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(e.env());
        String raw = e == null ? null : e.stateIdSuffix();
        String suffix = raw == null || raw.isEmpty() ? null : expandSuffix(raw, env, path + ".state_id_suffix");
        Settings s = new Settings(env, suffix);
        settings.put(name, s);
        return s;
    }

    /** The YAML path of the first entry of a name. */
    private String pathOf(String name) {
        return "environments[" + indices.get(names.indexOf(name)) + "]";
    }

    /** Reports the keys of every environment that the import does not use. */
    private void report() {
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            Environment e = byName.get(name);
            String path = "environments[" + indices.get(i) + "]";
            e.extras().keySet().forEach(k -> issues.unsupported(path + "." + k, "not an environment key Tapline"
                    + " uses (kept for the export)"));
            if (e.config() != null) {
                e.config().extras().keySet().forEach(k -> issues.unsupported(path + ".config." + k, "only plugin"
                        + " overlays are read from an environment's config (kept for the export)"));
            }
        }
    }

    private Map<PluginType, Map<String, Overlay>> overlaysOf(Environment env, String path) {
        Map<PluginType, Map<String, Overlay>> out = new LinkedHashMap<>();
        if (env.config() == null || env.config().plugins() == null) {
            return out;
        }
        env.config().plugins().extras().keySet().forEach(k -> issues.unsupported(path + ".config.plugins." + k,
                "overlays of this plugin type are not applied"));
        for (PluginType type : PluginType.values()) {
            List<PluginOverlay> list = env.overlays(type);
            for (int i = 0; i < list.size(); i++) {
                PluginOverlay o = list.get(i);
                if (o != null) {
                    out.computeIfAbsent(type, t -> new LinkedHashMap<>()).put(o.name(), new Overlay(path + ".config.plugins."
                            + type.id() + "[" + i + "]", o));
                }
            }
        }
        return out;
    }

    private String expandSuffix(String suffix, Map<String, String> env, String path) {
        Conventions.Expanded x = Conventions.expandSuffix(suffix, env);
        if (x.value() == null) {
            issues.unsupported(path, "refers to $" + x.missing() + ", which the environment's env does not"
                    + " define; Tapline cannot expand it in a state ID, so the suffix is not used");
            return null;
        }
        if (x.value().contains(":") || x.value().contains("/")) {
            issues.error(path, "must not contain ':' or '/'");
            return null;
        }
        return x.value();
    }
}
