package io.tapline.project.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.Names;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.PipUrl;
import io.tapline.project.meltano.Conventions;
import io.tapline.project.meltano.DocumentBinder;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument;
import io.tapline.project.meltano.MeltanoDocument.Plugin;
import io.tapline.project.meltano.MeltanoDocument.Setting;
import io.tapline.project.model.ProjectModel.PluginDef;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The plugins of a meltano.yml as Tapline will store them:
 * <ul>
 *   <li>plugins of the five types Tapline runs; {@code executable} defaults to the plugin name (as
 *   Meltano runs {@code <name>}); a relative executable ({@code ./tap.py}) is resolved against
 *   {@code tapline.projects.base-dir} or refused;</li>
 *   <li>settings with {@code kind: password} or {@code sensitive: true} become sensitive;</li>
 *   <li>{@code inherit_from} copies the parent's fields, the child's own fields win (config per
 *   setting);</li>
 *   <li>each environment's overlay is kept apart ({@link ProjectModel.Overlay}); a child has, in an
 *   environment, its parent's overlay there (less the config keys of its own base, which win over
 *   what it inherits) under its own;</li>
 *   <li>a mapper's {@code mappings} become mappers ({@link MapperMappings}).</li>
 * </ul>
 */
final class PluginPlanner {

    /** Plugin keys kept in extras without a report: descriptive ones, and {@code python} (read by the installer). */
    private static final Set<String> DESCRIPTIVE = Set.of("label", "docs", "repo", "logo_url", "description",
            "keywords", "maintenance_status", "domain_url", "hidden", "ext_repo", "settings_group_validation",
            "commands", "mappings", "capabilities_override", "supported_python_versions", "update", "python",
            "annotations");
    /** Why known Meltano plugin keys are not acted on. */
    private static final Map<String, String> PLUGIN_KEY_REASONS = Map.ofEntries(
            Map.entry("catalog", "a catalog file path is not read; store the catalog with PUT /api/v1/plugins/extractors/{name}"),
            Map.entry("schema", "schema overrides are not applied to the catalog"),
            Map.entry("select_filter", "select filters are not applied"),
            Map.entry("state", "a state file extra is not read; set state through /api/v1/states"),
            Map.entry("load_schema", "load_schema is not passed to the loader; put it in config"),
            Map.entry("use_cached_catalog", "catalog caching is not configurable; a stored catalog is always used"),
            Map.entry("log_parser", "log parsers are not used; logs are kept as written"),
            Map.entry("requires", "plugin requirements are not installed"),
            Map.entry("dialect", "the dialect is not used"),
            Map.entry("target_schema", "the target schema is not used"));

    /** A plugin entry as written, with its YAML path. */
    record Entry(PluginType type, String name, String path, Plugin plugin) {
    }

    private final MeltanoDocument doc;
    private final Map<String, Map<PluginType, Map<String, EnvironmentChoice.Overlay>>> overlays;
    private final Path baseDir;
    private final Issues issues;
    private final Map<PluginType, Map<String, Entry>> entries = new LinkedHashMap<>();
    private final Map<PluginType, Map<String, PluginDef>> resolved = new HashMap<>();
    private final Set<String> resolving = new HashSet<>();

    /**
     * @param overlays every environment's overlays ({@link EnvironmentChoice#overlays()})
     * @param baseDir directory relative executables are resolved against, or null to refuse them
     */
    PluginPlanner(MeltanoDocument doc, Map<String, Map<PluginType, Map<String, EnvironmentChoice.Overlay>>> overlays,
                  Path baseDir,
                  Issues issues) {
        this.doc = doc;
        this.overlays = overlays;
        this.baseDir = baseDir;
        this.issues = issues;
    }

    /** The plugins, types in the order extractors, loaders, mappers, transformers, utilities, then the mappings' mappers. */
    List<PluginDef> plan() {
        doc.plugins().extras().keySet().forEach(k -> issues.unsupported("plugins." + k, "Tapline runs extractors,"
                + " loaders, mappers, transformers and utilities only (kept for the export)"));
        for (PluginType type : PluginType.values()) {
            collect(type);
        }
        overlays.values().forEach(byType -> byType.forEach((type, named) -> named.forEach((name, o) -> {
            if (!entries.getOrDefault(type, Map.of()).containsKey(name)) {
                issues.error(o.path() + ".name", "no " + type.id() + " plugin named '" + name
                        + "' is defined under plugins");
            }
            o.overlay().extras().keySet().forEach(k -> issues.unsupported(o.path() + "." + k, "only config, select,"
                    + " metadata and env of an environment overlay are applied (kept for the export)"));
        })));
        List<PluginDef> plugins = new ArrayList<>();
        for (PluginType type : PluginType.values()) {
            for (Entry e : entries.getOrDefault(type, Map.of()).values()) {
                PluginDef def = resolve(type, e.name());
                if (def != null) {
                    plugins.add(def);
                }
            }
        }
        return plugins;
    }

    /** The entries read, by type and name (valid names only, first of a name given twice). */
    Map<PluginType, Map<String, Entry>> entries() {
        return entries;
    }

    private void collect(PluginType type) {
        List<Plugin> list = doc.plugins().of(type);
        Map<String, Entry> byName = entries.computeIfAbsent(type, t -> new LinkedHashMap<>());
        for (int i = 0; i < list.size(); i++) {
            Plugin p = list.get(i);
            String path = "plugins." + type.id() + "[" + i + "]";
            if (p == null) {
                continue;
            }
            if (!Names.PLUGIN_NAME.matcher(p.name()).matches()) {
                issues.error(path + ".name", "must be 1 to 100 characters of lowercase letters, digits, '-' and '_',"
                        + " starting with a letter or digit");
                continue;
            }
            if (byName.containsKey(p.name())) {
                issues.error(path + ".name", "plugin '" + p.name() + "' is defined twice under plugins." + type.id());
                continue;
            }
            byName.put(p.name(), new Entry(type, p.name(), path, p));
        }
    }

    private PluginDef resolve(PluginType type, String name) {
        Map<String, PluginDef> done = resolved.computeIfAbsent(type, t -> new HashMap<>());
        if (done.containsKey(name)) {
            return done.get(name);
        }
        Entry e = entries.getOrDefault(type, Map.of()).get(name);
        if (e == null) {
            return null;
        }
        String key = type.id() + "/" + name;
        if (!resolving.add(key)) {
            issues.error(e.path() + ".inherit_from", "inherits from itself through a cycle");
            done.put(name, null);
            return null;
        }
        try {
            PluginDef def = build(e);
            done.put(name, def);
            return def;
        } finally {
            resolving.remove(key);
        }
    }

    private PluginDef build(Entry e) {
        Plugin p = e.plugin();
        String path = e.path();
        PluginDef parent = null;
        if (p.inheritFrom() != null) {
            if (!entries.getOrDefault(e.type(), Map.of()).containsKey(p.inheritFrom())) {
                issues.error(path + ".inherit_from", "no " + e.type().id() + " plugin named '" + p.inheritFrom()
                        + "' is defined in this project (Tapline does not look plugins up on Meltano Hub)");
                return null;
            }
            parent = resolve(e.type(), p.inheritFrom());
            if (parent == null) {
                return null;
            }
        }
        ObjectNode extras = parent == null ? JsonNodeFactory.instance.objectNode() : parent.extras().deepCopy();
        extras.remove(Conventions.MAPPING_OF);
        List<String> args = parent == null ? null : parent.args();
        p.extras().forEach((k, v) -> {
            extras.set(k, v);
            if (!k.equals("settings") && !DESCRIPTIVE.contains(k)) {
                issues.unsupported(path + "." + k, PLUGIN_KEY_REASONS.getOrDefault(k, "not a plugin key Tapline uses")
                        + " (kept for the export)");
            }
        });
        JsonNode own = extras.path("annotations").path(Conventions.ANNOTATION).get(Conventions.ARGS);
        if (own != null && p.extras().containsKey("annotations")) {
            List<String> given = new ArrayList<>();
            own.forEach(v -> {
                if (v.isTextual()) {
                    given.add(v.asText());
                }
            });
            args = List.copyOf(given);
            if (!own.isArray() || given.size() != own.size()) {
                issues.error(path + ".annotations." + Conventions.ANNOTATION + "." + Conventions.ARGS,
                        "must be a list of strings");
            }
        }
        if (extras.get("annotations") instanceof ObjectNode a && a.has(Conventions.ANNOTATION)) {
            ObjectNode rest = a.deepCopy();
            rest.remove(Conventions.ANNOTATION);
            if (rest.isEmpty()) {
                extras.remove("annotations");
            } else {
                extras.set("annotations", rest);
            }
        }
        if (p.extras().containsKey("mappings") && e.type() != PluginType.MAPPERS) {
            issues.unsupported(path + ".mappings", "mappings are read for mappers only");
        }
        String namespace = p.namespace() != null ? p.namespace() : parent == null ? null : parent.namespace();
        String variant = p.variant() != null ? p.variant() : parent == null ? null : parent.variant();
        String pipUrl = p.pipUrl() != null ? p.pipUrl() : parent == null ? null : parent.pipUrl();
        String executable = p.executable() == null ? (parent != null ? parent.executable() : e.name())
                : executable(p.executable().trim(), path + ".executable");
        if (p.pipUrl() != null) {
            String refused = PipUrl.parse(pipUrl).error();
            if (refused != null) {
                issues.error(path + ".pip_url", refused);
            }
        }
        if (p.python() != null) {
            PipUrl.checkPython(p.python().trim()).ifPresent(m -> issues.error(path + ".python", m));
        }
        // Not written: the parent's; for a custom plugin (a namespace, no parent) Meltano's none; for a
        // Hub plugin null, and the plugin is asked (--about) before its first use.
        List<String> capabilities = p.capabilities() != null ? p.capabilities()
                : parent != null ? parent.capabilities() : p.namespace() != null ? List.of() : null;
        ObjectNode config = parent == null ? JsonNodeFactory.instance.objectNode() : parent.config().deepCopy();
        if (p.config() != null) {
            p.config().fields().forEachRemaining(f -> config.set(f.getKey(), f.getValue().deepCopy()));
        }
        List<String> select = p.select() != null ? p.select() : parent == null ? List.of() : parent.select();
        ObjectNode metadata = p.metadata() != null ? p.metadata().deepCopy()
                : parent == null ? JsonNodeFactory.instance.objectNode() : parent.metadata().deepCopy();
        Map<String, String> env = parent == null ? new LinkedHashMap<>() : new LinkedHashMap<>(parent.env());
        if (p.env() != null) {
            env.putAll(p.env());
        }
        if ((p.select() != null || p.metadata() != null) && e.type() != PluginType.EXTRACTORS) {
            issues.unsupported(path + (p.select() != null ? ".select" : ".metadata"),
                    "select and metadata apply to extractors only");
        }
        List<String> sensitive = sensitive(p, parent, extras.get("settings"), path);

        Map<String, ProjectModel.Overlay> envOverlays = overlaysOf(e, p, parent);
        return new PluginDef(e.type(), e.name(), path, executable,
                capabilities == null ? null : List.copyOf(capabilities), config,
                sensitive, List.copyOf(select), metadata, env, namespace, variant, pipUrl, p.inheritFrom(),
                extras, args, envOverlays);
    }

    /**
     * The plugin's overlay in each environment: its parent's there (without the config keys the
     * plugin's own base sets: those win over what it inherits, as in Meltano), its own merged over it.
     */
    private Map<String, ProjectModel.Overlay> overlaysOf(Entry e, Plugin p, PluginDef parent) {
        Map<String, ProjectModel.Overlay> out = new LinkedHashMap<>();
        overlays.forEach((environment, byType) -> {
            EnvironmentChoice.Overlay own = byType.getOrDefault(e.type(), Map.of()).get(e.name());
            ProjectModel.Overlay inherited = parent == null ? null : parent.overlays().get(environment);
            if (own == null && inherited == null) {
                return;
            }
            ObjectNode config = inherited == null ? JsonNodeFactory.instance.objectNode() : inherited.config().deepCopy();
            if (inherited != null && p.config() != null) {
                p.config().fieldNames().forEachRemaining(config::remove);
            }
            ObjectNode metadata = inherited == null ? JsonNodeFactory.instance.objectNode()
                    : inherited.metadata().deepCopy();
            Map<String, String> env = inherited == null ? new LinkedHashMap<>() : new LinkedHashMap<>(inherited.env());
            List<String> select = inherited == null ? null : inherited.select();
            ObjectNode extras = JsonNodeFactory.instance.objectNode();
            String path = inherited == null ? null : inherited.path();
            if (own != null) {
                MeltanoDocument.PluginOverlay o = own.overlay();
                path = own.path();
                if (o.config() != null) {
                    deepMerge(config, o.config());
                }
                if (o.metadata() != null) {
                    deepMerge(metadata, o.metadata());
                }
                if (o.env() != null) {
                    env.putAll(o.env());
                }
                if (o.select() != null) {
                    select = List.copyOf(o.select());
                }
                o.extras().forEach(extras::set);
            }
            if (own == null && config.isEmpty() && metadata.isEmpty() && env.isEmpty() && select == null) {
                return; // the parent's overlay sets only what this plugin's own base sets
            }
            out.put(environment, new ProjectModel.Overlay(path, config, env, metadata, select, extras));
        });
        return out;
    }

    /** The parent's sensitive names, then those of the settings ({@code kind: password}, {@code sensitive: true}). */
    private List<String> sensitive(Plugin p, PluginDef parent, JsonNode settings, String path) {
        Set<String> sensitive = new LinkedHashSet<>(parent == null ? List.of() : parent.sensitive());
        List<Setting> list = DocumentBinder.bindEach(settings, Setting.class);
        for (int i = 0; i < list.size(); i++) {
            Setting s = list.get(i);
            if (s == null) {
                continue;
            }
            if (s.secret()) {
                sensitive.add(s.name());
            }
            if (p.extras().containsKey("settings") && s.value() != null) {
                issues.unsupported(path + ".settings[" + i + "].value", "setting defaults are not applied; put the"
                        + " value in config");
            }
        }
        return List.copyOf(sensitive);
    }

    private String executable(String exe, String path) {
        if (exe.isEmpty()) {
            issues.error(path, "must not be empty");
            return null;
        }
        if (exe.startsWith("/") || exe.indexOf('/') < 0) {
            return exe;
        }
        if (baseDir == null) {
            issues.error(path, "is relative ('" + exe + "'); set tapline.projects.base-dir to the Meltano project"
                    + " directory so that it can be resolved, or use an absolute path or a command on PATH");
            return null;
        }
        Path base = baseDir.toAbsolutePath().normalize();
        Path resolvedPath = base.resolve(exe).normalize();
        if (!resolvedPath.startsWith(base)) {
            issues.error(path, "'" + exe + "' leaves the project directory " + base);
            return null;
        }
        return resolvedPath.toString();
    }

    /** Merges {@code overlay} into {@code target}: mappings key by key, every other value replaced (Meltano's rule). */
    static void deepMerge(ObjectNode target, ObjectNode overlay) {
        io.tapline.plugin.PluginOverlays.deepMerge(target, overlay);
    }
}
