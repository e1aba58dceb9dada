package io.tapline.project.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.Pipeline;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginEnvironment;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.PipUrl;
import io.tapline.project.ProjectImport;
import io.tapline.project.SensitiveNames;
import io.tapline.project.SettingKinds;
import io.tapline.project.meltano.Conventions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Renders the service's plugins and pipelines as a meltano.yml that Meltano 4.2.2 runs as it is and
 * reads without warnings (no deprecated {@code version}; meltano-state.md §5, docs/projects.md
 * "Export"), such that importing it again changes nothing. A comment at the top
 * ({@link ExportNotes}) says what Meltano runs differently and names the plugins and pipelines
 * concerned.
 * <ul>
 *   <li>{@code default_environment}, {@code environments} and the other top-level keys of the last
 *   import (secrets already replaced by references); every pipeline environment is listed;</li>
 *   <li>plugins by type with name, inherit_from, namespace (derived from the name for every plugin
 *   that was not imported as a Hub plugin), variant, pip_url, executable (left out when it is the
 *   plugin name, Meltano's default), capabilities, settings, config, select, metadata, env and the
 *   other Meltano keys kept at import; a plugin with {@code inherit_from} lists only what differs
 *   from its parent. Values of sensitive settings are never written: each becomes the reference
 *   {@code ${<PLUGIN>_<SETTING>}}, and an import that sees exactly that reference keeps the value
 *   the service holds. Custom plugins declare a setting for every config key ({@link SettingKinds});
 *   a plugin's {@code args} go to {@code annotations.tapline.args}, which Meltano ignores. A mapper
 *   made through the API is written with its config in one annotated mapping
 *   ({@code <mapper>-mapping}), which the tasks name;</li>
 *   <li>a pipeline whose state ID is its own name and that has no mappers is an extract-load
 *   schedule; every other pipeline is a job whose {@code tasks} is a list ({@code tap [mappings]
 *   target}, then {@code plugin:command} for the transform) plus, unless it is a {@code @manual}
 *   pipeline named after its job without schedule env, a schedule of that job. A schedule's env
 *   carries {@code MELTANO_ENVIRONMENT} for a pipeline outside the default environment and
 *   {@code MELTANO_RUN_STATE_ID_SUFFIX} for a suffix its environment does not give; its
 *   {@code timezone} (a Tapline key Meltano ignores) is written when it is not UTC. A paused
 *   schedule is {@code @manual} with its interval under {@code annotations.tapline}; pipeline env
 *   shared by a whole environment goes to the environment's {@code env} ({@link EnvPlacement}).</li>
 * </ul>
 * The YAML is written by {@link YamlWriter}, which quotes every string a YAML 1.1 or 1.2 reader
 * would read as another type. Limits: see docs/projects.md.
 */
public final class ProjectExporter {

    private static final List<PluginType> TYPES = List.of(PluginType.EXTRACTORS, PluginType.LOADERS,
            PluginType.MAPPERS, PluginType.TRANSFORMERS, PluginType.UTILITIES);

    private ProjectExporter() {
    }

    /**
     * The meltano.yml of the service's plugins and pipelines.
     *
     * @param last the newest import (its kept document, see {@code KeptDocument}), or null
     * @param overlays each plugin's overlays by plugin id and environment name
     * @param open opens a sealed secret value (to compare inherited secrets by plaintext)
     */
    public static String export(ProjectImport last, List<Plugin> plugins, List<Pipeline> pipelines,
                                Map<Long, Map<String, PluginEnvironment>> overlays,
                                java.util.function.UnaryOperator<String> open) {
        ExportNotes notes = new ExportNotes();
        ObjectNode root = tree(last, plugins, pipelines, overlays, open, notes);
        return notes.header() + YamlWriter.write(root);
    }

    static ObjectNode tree(ProjectImport last, List<Plugin> plugins, List<Pipeline> pipelines,
                           Map<Long, Map<String, PluginEnvironment>> overlays,
                           java.util.function.UnaryOperator<String> open, ExportNotes notes) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode doc = last == null ? f.objectNode() : Jsons.readObject(last.document);
        List<Pipeline> ps = new ArrayList<>(pipelines);
        ps.sort(Comparator.comparing(p -> p.id));
        ObjectNode root = f.objectNode();
        // No `version`: Meltano 4.2.2 warns that it is deprecated on every command when it is given.
        String defaultEnv = doc.path("default_environment").asText(null);
        if (defaultEnv == null) {
            defaultEnv = last != null ? last.environment : ps.isEmpty() ? "dev" : ps.get(0).environment;
        }
        root.put("default_environment", defaultEnv);
        doc.fields().forEachRemaining(e -> {
            if (!Set.of("default_environment", "environments", "otherPlugins", "schedulesWithoutTimezone",
                    Conventions.HUB_PLUGINS, Conventions.OVERLAID_BASE, Conventions.ENVIRONMENT_PIPELINES)
                    .contains(e.getKey())) {
                root.set(e.getKey(), e.getValue());
            }
        });

        // Environments.
        ArrayNode environments = doc.get("environments") instanceof ArrayNode a ? a.deepCopy() : f.arrayNode();
        Map<String, ObjectNode> envByName = new LinkedHashMap<>();
        environments.forEach(e -> envByName.put(e.path("name").asText(), (ObjectNode) e));
        Set<String> needed = new LinkedHashSet<>();
        needed.add(defaultEnv);
        ps.forEach(p -> needed.add(p.environment));
        for (String n : needed) {
            if (!envByName.containsKey(n)) {
                ObjectNode e = environments.addObject().put("name", n);
                envByName.put(n, e);
            }
        }
        for (Plugin p : plugins) {
            overlays.getOrDefault(p.id, Map.of()).keySet().forEach(n -> envByName.computeIfAbsent(n,
                    k -> environments.addObject().put("name", k)));
        }
        EnvPlacement.shareByEnvironment(ps, envByName);
        EnvironmentPipelines groups = new EnvironmentPipelines(doc, ps, envByName);
        root.set("environments", environments);

        // Plugins: the imported environment's overlays apart from the base again.
        List<Plugin> sorted = new ArrayList<>(plugins);
        sorted.sort(Comparator.comparing(p -> p.id));
        // A child is written with what differs from its parent as stored (the parent's overlay
        // included): that is what it inherited at import.
        Map<String, Plugin> byKey = new HashMap<>();
        sorted.forEach(p -> byKey.put(p.type.id() + "/" + p.name, p));
        Map<String, OverlaySplit.Split> splits = OverlaySplit.split(doc, last == null ? null
                : envByName.get(last.environment), sorted);
        sorted.replaceAll(p -> splits.containsKey(p.type.id() + "/" + p.name)
                ? splits.get(p.type.id() + "/" + p.name).base() : p);
        splits.forEach((key, s) -> OverlaySplit.write(envByName.get(last.environment), s.base(), s.overlay()));
        for (Plugin p : sorted) {
            if (!Jsons.readObject(p.extras).has(Conventions.MAPPING_OF)) {
                overlays.getOrDefault(p.id, Map.of()).forEach((n, o) -> OverlaySplit.write(envByName.get(n), p,
                        overlayEntry(p, o)));
            }
        }
        Set<String> hub = new java.util.HashSet<>();
        doc.path(Conventions.HUB_PLUGINS).forEach(n -> hub.add(n.asText()));
        Map<String, String> mappingNames = MeltanoShapes.mappingNames(sorted);
        ObjectNode pluginsNode = root.putObject("plugins");
        for (PluginType type : TYPES) {
            ArrayNode list = f.arrayNode();
            for (Plugin p : sorted) {
                if (p.type != type || Jsons.readObject(p.extras).has(Conventions.MAPPING_OF)) {
                    continue;
                }
                Plugin parent = p.inheritFrom == null ? null : byKey.get(type.id() + "/" + p.inheritFrom);
                boolean custom = parent == null && !hub.contains(type.id() + "/" + p.name);
                ObjectNode entry = plugin(p, parent, custom, open);
                boolean learned = !CapabilitySource.of(p.capabilitiesSource).map(CapabilitySource::given).orElse(false);
                if (learned && hub.contains(type.id() + "/" + p.name)) {
                    // a Hub plugin's capabilities come from the Hub for Meltano, as they came from the plugin here
                    entry.remove("capabilities");
                }
                if (p.namespace == null && parent == null && !hub.contains(type.id() + "/" + p.name)) {
                    entry = MeltanoShapes.withNamespace(entry, p.name.replace('-', '_'));
                }
                if (PipUrl.hasCredential(p.pipUrl)) {
                    notes.add(type.id() + " " + p.name + ": its pip_url holds a credential, written as ********;"
                            + " give it as ${NAME} from the environment (Meltano expands it at install)");
                }
                if (mappingNames.containsKey(p.name)) {
                    MeltanoShapes.asMapping(entry, mappingNames.get(p.name), p.name);
                }
                if (entry.at("/annotations/" + Conventions.ANNOTATION + "/" + Conventions.ARGS).size() > 0) {
                    notes.add(type.id() + " " + p.name + ": its arguments are under annotations.tapline.args;"
                            + " Meltano starts it without them");
                }
                list.add(entry);
            }
            if (!list.isEmpty()) {
                pluginsNode.set(type.id(), list);
            }
        }
        if (doc.get("otherPlugins") instanceof ObjectNode other) {
            other.fields().forEachRemaining(e -> pluginsNode.set(e.getKey(), e.getValue()));
        }

        // Schedules and jobs.
        ArrayNode schedules = f.arrayNode();
        ArrayNode jobs = f.arrayNode();
        Set<String> jobNames = new LinkedHashSet<>();
        Set<String> transformers = new LinkedHashSet<>();
        sorted.stream().filter(p -> p.type == PluginType.TRANSFORMERS).forEach(p -> transformers.add(p.name));
        for (Pipeline p : ps) {
            if (groups.folded(p)) {
                continue; // written by the schedule or job of its environment group
            }
            Map<String, String> env = new LinkedHashMap<>();
            ObjectNode environment = envByName.get(p.environment);
            if (!p.environment.equals(defaultEnv) || groups.pinned(p)) {
                env.put(Conventions.ENVIRONMENT_VAR, p.environment);
            }
            String suffix = p.stateIdSuffix == null || p.stateIdSuffix.isEmpty() ? null : p.stateIdSuffix;
            if (suffix != null && !p.stateIdOverridden && !suffix.equals(MeltanoShapes.environmentSuffix(environment))) {
                env.put(Conventions.SUFFIX_VAR, suffix);
            }
            env.putAll(Jsons.readStringMap(p.env));
            if (environment != null && environment.get("env") instanceof ObjectNode envEnv) {
                envEnv.fields().forEachRemaining(e -> {
                    if (!e.getKey().startsWith("MELTANO_") && e.getValue().asText().equals(env.get(e.getKey()))) {
                        env.remove(e.getKey());
                    }
                });
            }
            List<String> own = env.keySet().stream().filter(k -> !k.startsWith("MELTANO_")).toList();
            if (!own.isEmpty()) {
                notes.add("pipeline " + p.name + ": env " + String.join(", ", own) + " only in its schedule's env"
                        + " (meltano schedule run passes it, meltano run does not): other pipelines of environment "
                        + p.environment + " differ");
            }
            if (!p.scheduleEnabled) {
                notes.add("pipeline " + p.name + ": paused; written with interval @manual");
            }
            List<String> transformArgs = Jsons.readStrings(p.transformArgs);
            boolean elSchedule = p.meltanoJob == null && p.stateIdOverridden && p.stateId.equals(p.name)
                    && p.mappers.isEmpty() && (p.transform == null || (transformers.size() == 1
                    && transformers.contains(p.transform.name) && transformArgs.equals(List.of("run"))));
            if (elSchedule) {
                ObjectNode s = schedules.addObject();
                s.put("name", p.name);
                interval(s, p);
                s.put("extractor", p.extractor.name);
                s.put("loader", p.loader.name);
                s.put("transform", p.transform == null ? "skip" : "run");
                scheduleExtras(s, p, env);
                continue;
            }
            String job = p.meltanoJob != null ? p.meltanoJob : p.name;
            if (jobNames.add(job)) {
                ObjectNode j = jobs.addObject();
                j.put("name", job);
                List<String> el = new ArrayList<>();
                el.add(p.extractor.name);
                p.mappers.forEach(m -> el.add(mappingNames.getOrDefault(m.name, m.name)));
                el.add(p.loader.name);
                // Always a list: Meltano iterates a string task character by character.
                ArrayNode tasks = j.putArray("tasks");
                tasks.add(String.join(" ", el));
                if (p.transform != null) {
                    tasks.add(transformTask(p.transform, transformArgs));
                }
            }
            boolean manualJob = p.name.equals(job) && List.of("@manual", "@none").contains(p.scheduleInterval)
                    && env.isEmpty() && p.scheduleEnabled; // a job has no env or pause: they need a schedule
            if (!manualJob) {
                ObjectNode s = schedules.addObject();
                s.put("name", p.name);
                interval(s, p);
                s.put("job", job);
                scheduleExtras(s, p, env);
            }
        }
        if (!schedules.isEmpty()) {
            root.set("schedules", schedules);
        }
        if (!jobs.isEmpty()) {
            root.set("jobs", jobs);
        }
        return root;
    }

    /**
     * The schedule's interval; a paused schedule is {@code @manual} (Meltano's interval for a
     * schedule that only runs when asked: {@code @manual}, {@code @once} and {@code @none} are
     * aliases in Meltano 4.2.2, and only {@code @manual} says so to a reader) with Tapline's
     * interval and the pause under {@code annotations.tapline}, which Meltano ignores.
     */
    private static void interval(ObjectNode s, Pipeline p) {
        if (p.scheduleEnabled) {
            s.put("interval", p.scheduleInterval);
            return;
        }
        s.put("interval", "@manual");
        s.putObject("annotations").putObject(Conventions.ANNOTATION).put(Conventions.PAUSED, true)
                .put(Conventions.INTERVAL, p.scheduleInterval);
    }

    private static void scheduleExtras(ObjectNode s, Pipeline p, Map<String, String> env) {
        if (!"UTC".equals(p.scheduleTimezone)) {
            s.put("timezone", p.scheduleTimezone);
        }
        if (!env.isEmpty()) {
            s.set("env", Jsons.MAPPER.valueToTree(env));
        }
    }

    /** {@code plugin:command}: the command of {@code commands} with these args, else the single argument. */
    private static String transformTask(Plugin t, List<String> args) {
        if (args.isEmpty()) {
            return t.name;
        }
        JsonNode commands = Jsons.readObject(t.extras).path("commands");
        var it = commands.fields();
        while (it.hasNext()) {
            var c = it.next();
            JsonNode a = c.getValue().isTextual() ? c.getValue() : c.getValue().get("args");
            if (a != null && a.isTextual() && List.of(a.asText().trim().split("\\s+")).equals(args)) {
                return t.name + ":" + c.getKey();
            }
        }
        return t.name + ":" + args.get(0);
    }

    /**
     * One plugin entry.
     *
     * @param custom a plugin that Meltano does not look up on Meltano Hub: it gets a setting for
     *     each config key ({@link SettingKinds})
     */
    private static ObjectNode plugin(Plugin p, Plugin parent, boolean custom,
                                     java.util.function.UnaryOperator<String> open) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("name", p.name);
        if (p.inheritFrom != null) {
            o.put("inherit_from", p.inheritFrom);
        }
        text(o, "namespace", p.namespace, parent == null ? null : parent.namespace);
        text(o, "variant", p.variant, parent == null ? null : parent.variant);
        text(o, "pip_url", PipUrl.masked(p.pipUrl), parent == null ? null : PipUrl.masked(parent.pipUrl));
        String defaultExe = parent == null ? p.name : parent.executable;
        if (!p.executable.equals(defaultExe)) {
            o.put("executable", p.executable);
        }
        ObjectNode extras = Jsons.readObject(p.extras);
        ObjectNode parentExtras = parent == null ? f.objectNode() : Jsons.readObject(parent.extras);
        list(o, "capabilities", Jsons.read(p.capabilities), parent == null ? null : Jsons.read(parent.capabilities));
        List<String> sensitive = Jsons.readStrings(p.sensitive);
        ObjectNode config = Jsons.readObject(p.config);
        if (parent != null) {
            // Only what differs from the parent; an inherited secret stays the parent's reference.
            ObjectNode parentConfig = Jsons.readObject(parent.config);
            ObjectNode own = f.objectNode();
            config.fields().forEachRemaining(e -> {
                if (!SecretReferences.sameValue(e.getValue(), parentConfig.get(e.getKey()), open)) {
                    own.set(e.getKey(), e.getValue());
                }
            });
            config = own;
        }
        config = SecretReferences.inConfig(p.name, config, sensitive);
        JsonNode settings = SettingKinds.settings(extras.get("settings"), config, sensitive, custom);
        if (settings != null && !Objects.equals(settings, SettingKinds.settings(parentExtras.get("settings"), config,
                parent == null ? List.of() : Jsons.readStrings(parent.sensitive), false))) {
            o.set("settings", settings);
        }
        if (!config.isEmpty()) {
            o.set("config", config);
        }
        list(o, "select", Jsons.read(p.selectPatterns), parent == null ? null : Jsons.read(parent.selectPatterns));
        JsonNode metadata = Jsons.read(p.metadata);
        if (!metadata.isEmpty() && (parent == null || !metadata.equals(Jsons.read(parent.metadata)))) {
            o.set("metadata", metadata);
        }
        ObjectNode env = f.objectNode();
        Map<String, String> parentEnv = parent == null ? Map.of() : Jsons.readStringMap(parent.env);
        Jsons.readStringMap(p.env).forEach((k, v) -> {
            String value = sensitive.contains(k) && !SensitiveNames.isReference(v) ? "${" + k + "}" : v;
            if (!value.equals(parentEnv.get(k))) {
                env.put(k, value);
            }
        });
        if (!env.isEmpty()) {
            o.set("env", env);
        }
        JsonNode args = Jsons.read(p.args);
        if (!args.isEmpty() && (parent == null || !args.equals(Jsons.read(parent.args)))) {
            // Meltano starts a plugin as its executable alone: the arguments go where Meltano keeps
            // but ignores them, for Tapline's import (and the comment at the top names the plugin).
            ObjectNode annotations = extras.get("annotations") instanceof ObjectNode a ? a.deepCopy() : f.objectNode();
            ObjectNode own = annotations.get(Conventions.ANNOTATION) instanceof ObjectNode t ? t : annotations
                    .putObject(Conventions.ANNOTATION);
            own.set(Conventions.ARGS, args);
            extras.set("annotations", annotations);
        }
        extras.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("settings") && !e.getKey().equals(Conventions.MAPPING_OF)
                    && !e.getValue().equals(parentExtras.get(e.getKey()))) {
                o.set(e.getKey(), e.getValue());
            }
        });
        return o;
    }

    /** A plugin's overlay in one environment as meltano.yml's entry ({@code name} first; empty parts left out). */
    private static ObjectNode overlayEntry(Plugin p, PluginEnvironment o) {
        ObjectNode entry = JsonNodeFactory.instance.objectNode();
        entry.put("name", p.name);
        ObjectNode config = Jsons.readObject(o.config);
        if (!config.isEmpty()) {
            entry.set("config", config);
        }
        if (o.selectPatterns != null) {
            entry.set("select", Jsons.read(o.selectPatterns));
        }
        ObjectNode metadata = Jsons.readObject(o.metadata);
        if (!metadata.isEmpty()) {
            entry.set("metadata", metadata);
        }
        ObjectNode env = Jsons.readObject(o.env);
        if (!env.isEmpty()) {
            entry.set("env", env);
        }
        Jsons.readObject(o.extras).fields().forEachRemaining(f -> entry.set(f.getKey(), f.getValue()));
        return entry;
    }

    private static void text(ObjectNode o, String key, String value, String parentValue) {
        if (value != null && !value.equals(parentValue)) {
            o.put(key, value);
        }
    }

    private static void list(ObjectNode o, String key, JsonNode value, JsonNode parentValue) {
        if (value != null && !value.isEmpty() && !value.equals(parentValue)) {
            o.set(key, value);
        }
    }
}
