package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.Names;
import io.tapline.common.error.Problem;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemType;
import io.tapline.pipeline.schedule.Interval;
import io.tapline.plugin.PluginType;
import io.tapline.project.ProjectModel.PipelineDef;
import io.tapline.project.ProjectModel.PluginDef;
import io.tapline.project.ProjectModel.Unsupported;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Interprets a parsed meltano.yml (meltano-state.md §5) for one environment:
 * <ul>
 *   <li>plugins of the five types Tapline runs; {@code executable} defaults to the plugin name (as
 *   Meltano runs {@code <name>}); a relative executable ({@code ./tap.py}) is resolved against
 *   {@code tapline.projects.base-dir} or refused; settings with {@code kind: password} or
 *   {@code sensitive: true} become sensitive; {@code inherit_from} copies the parent's fields, the
 *   child's own fields win (config per setting); a mapper's {@code mappings} become one mapper per
 *   mapping (its config over the mapper's);</li>
 *   <li>the environment's overlay ({@code environments[].config.plugins.<type>[]}) is merged into
 *   the plugins (config and metadata deep-merged, select replaced, env merged); its {@code env}
 *   goes to every pipeline and its {@code state_id_suffix} to the pipelines made from jobs;</li>
 *   <li>an extract-load schedule becomes a pipeline whose state ID is the schedule name (Meltano
 *   runs {@code meltano elt --state-id=<schedule name>}); a job schedule becomes a pipeline of the
 *   job's first {@code tap [mappers] target} block, with the following utility or transformer task
 *   ({@code dbt-postgres:run}) as its transform, and the {@code meltano run} state ID
 *   {@code <env>:<tap>-to-<target>[:<suffix>]}; a job without a schedule becomes a {@code @manual}
 *   pipeline named after the job;</li>
 *   <li>{@code ${VAR}} references are kept as written (the run engine expands them).</li>
 * </ul>
 * Every key Tapline does not act on is listed as unsupported, never dropped silently. Problems
 * are collected and thrown together as one 400 {@code validation} problem whose
 * {@code errors[].field} are YAML paths.
 */
public final class ProjectReader {

    /** Plugin keys Tapline models. */
    private static final Set<String> MODELLED = Set.of("name", "inherit_from", "namespace", "variant", "pip_url",
            "executable", "capabilities", "config", "settings", "select", "metadata", "env");
    /** Plugin keys kept in extras without a report: descriptive ones, and {@code python} (read by the installer). */
    private static final Set<String> DESCRIPTIVE = Set.of("label", "docs", "repo", "logo_url", "description",
            "keywords", "maintenance_status", "domain_url", "hidden", "ext_repo", "settings_group_validation",
            "commands", "mappings", "capabilities_override", "supported_python_versions", "update", "python");
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
    private static final Pattern STATE_SUFFIX_REF = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$([A-Za-z_][A-Za-z0-9_]*)");
    private static final List<PluginType> TYPES = List.of(PluginType.EXTRACTORS, PluginType.LOADERS,
            PluginType.MAPPERS, PluginType.TRANSFORMERS, PluginType.UTILITIES);
    private static final Set<String> TOP_LEVEL = Set.of("version", "default_environment", "environments", "plugins",
            "schedules", "jobs");
    /** Marks a mapper made from another mapper's {@code mappings} entry (not exported as a plugin). */
    static final String MAPPING_OF = "x-tapline-mapping-of";
    /**
     * Key of the stored document listing the plugins imported without {@code namespace}
     * ({@code <type>/<name>}): Meltano Hub plugins, exported as written; every other plugin is
     * exported with a namespace.
     */
    static final String HUB_PLUGINS = "hubPlugins";

    private final MeltanoYaml.Parsed parsed;
    private final Path baseDir;
    private final List<Problem.FieldError> errors = new ArrayList<>();
    private final List<Unsupported> unsupported = new ArrayList<>();
    private final Map<PluginType, Map<String, Raw>> raw = new LinkedHashMap<>();
    private final Map<PluginType, Map<String, PluginDef>> resolved = new HashMap<>();
    private final Set<String> resolving = new HashSet<>();
    private Map<PluginType, Map<String, Overlay>> overlays = Map.of();
    /** Mapping names that stand for a mapper of the same pipeline (Tapline's export), by mapping name. */
    private final Map<String, String> mapperOfMapping = new HashMap<>();
    /** Per environment named in a schedule's {@code MELTANO_ENVIRONMENT}: its env and state ID suffix. */
    private final Map<String, EnvSettings> envSettings = new HashMap<>();

    /** An environment's {@code env} and expanded {@code state_id_suffix} (null when none). */
    private record EnvSettings(Map<String, String> env, String suffix) {
    }

    /** A plugin entry as written. */
    private record Raw(PluginType type, String name, String path, ObjectNode node) {
    }

    /** An environment's overlay of one plugin. */
    private record Overlay(String path, ObjectNode node) {
    }

    private ProjectReader(MeltanoYaml.Parsed parsed, Path baseDir) {
        this.parsed = parsed;
        this.baseDir = baseDir;
    }

    /**
     * Interprets a document.
     *
     * @param requestedEnvironment the environment to read it for, or null for {@code default_environment}
     * @param baseDir directory relative executables are resolved against, or null to refuse them
     * @throws ProblemException 400 {@code validation} listing every problem by YAML path
     */
    public static ProjectModel read(MeltanoYaml.Parsed parsed, String requestedEnvironment, Path baseDir) {
        return new ProjectReader(parsed, baseDir).read(requestedEnvironment);
    }

    private ProjectModel read(String requestedEnvironment) {
        ObjectNode root = parsed.root();
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        JsonNode version = root.get("version");
        if (version != null && !(version.isNumber() && version.asInt() == 1 && version.asText().equals("1"))) {
            error("version", "must be 1 (the only meltano.yml version)");
        }
        String defaultEnvironment = text(root, "default_environment", "default_environment");

        // Environments.
        List<String> envNames = new ArrayList<>();
        Map<String, ObjectNode> envs = new LinkedHashMap<>();
        ArrayNode environments = list(root, "environments", "environments");
        for (int i = 0; i < environments.size(); i++) {
            String path = "environments[" + i + "]";
            if (!(environments.get(i) instanceof ObjectNode e)) {
                error(path, "must be a mapping with a name");
                continue;
            }
            String name = text(e, "name", path + ".name");
            if (name == null) {
                error(path + ".name", "is required");
                continue;
            }
            check(path + ".name", () -> Names.environment("name", name));
            if (envs.containsKey(name)) {
                error(path + ".name", "environment '" + name + "' is defined twice");
            }
            envNames.add(name);
            envs.put(name, e);
        }
        String environment = requestedEnvironment != null ? requestedEnvironment
                : defaultEnvironment != null ? defaultEnvironment : "dev";
        if (requestedEnvironment != null) {
            check("environment", () -> Names.environment("environment", requestedEnvironment));
        }
        if (!envs.isEmpty() && !envs.containsKey(environment)) {
            error(requestedEnvironment != null ? "environment" : "default_environment", "environment '" + environment
                    + "' is not defined under environments (" + String.join(", ", envNames) + ")");
        }
        if (defaultEnvironment != null && !envs.isEmpty() && !envs.containsKey(defaultEnvironment)
                && requestedEnvironment != null) {
            error("default_environment", "environment '" + defaultEnvironment + "' is not defined under environments");
        }
        ObjectNode active = envs.get(environment);
        int activeIndex = envNames.indexOf(environment);
        Map<String, String> envEnv = new LinkedHashMap<>();
        String stateIdSuffix = null;
        ArrayNode docEnvironments = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < envNames.size(); i++) {
            ObjectNode e = envs.get(envNames.get(i));
            String path = "environments[" + i + "]";
            ObjectNode kept = JsonNodeFactory.instance.objectNode();
            kept.put("name", envNames.get(i));
            boolean isActive = i == activeIndex;
            e.fields().forEachRemaining(f -> {
                switch (f.getKey()) {
                    case "name" -> {
                    }
                    case "env" -> kept.set("env", Sanitizer.sanitize(f.getValue(), "MELTANO_ENV"));
                    case "state_id_suffix" -> kept.set("state_id_suffix", f.getValue());
                    case "config" -> {
                        if (!isActive) {
                            kept.set("config", Sanitizer.sanitize(f.getValue(), "MELTANO_ENV"));
                        } else if (f.getValue() instanceof ObjectNode c) {
                            c.fieldNames().forEachRemaining(k -> {
                                if (!k.equals("plugins")) {
                                    unsupported.add(new Unsupported(path + ".config." + k, "only plugin overlays are"
                                            + " read from an environment's config"));
                                }
                            });
                        }
                    }
                    default -> {
                        unsupported.add(new Unsupported(path + "." + f.getKey(), "not an environment key Tapline"
                                + " uses (kept for the export)"));
                        kept.set(f.getKey(), Sanitizer.sanitize(f.getValue(), "MELTANO_ENV"));
                    }
                }
            });
            if (!isActive && e.has("config")) {
                unsupported.add(new Unsupported(path + ".config", "overlays of environment '" + envNames.get(i)
                        + "' are not applied (the project was imported for '" + environment + "'); kept for the export"));
            }
            docEnvironments.add(kept);
        }
        if (active != null) {
            String path = "environments[" + activeIndex + "]";
            envEnv.putAll(stringMap(active, "env", path + ".env"));
            String suffix = text(active, "state_id_suffix", path + ".state_id_suffix");
            if (suffix != null && !suffix.isEmpty()) {
                stateIdSuffix = expandSuffix(suffix, envEnv, path + ".state_id_suffix");
            }
            overlays = overlays(active, path);
        }
        envSettings.put(environment, new EnvSettings(envEnv, stateIdSuffix));

        // Plugins.
        JsonNode pluginsNode = root.get("plugins");
        if (pluginsNode != null && !pluginsNode.isNull() && !(pluginsNode instanceof ObjectNode)) {
            error("plugins", "must be a mapping of plugin types (extractors, loaders, ...)");
        }
        ObjectNode otherPlugins = JsonNodeFactory.instance.objectNode();
        if (pluginsNode instanceof ObjectNode plugins) {
            plugins.fields().forEachRemaining(f -> {
                PluginType type = TYPES.stream().filter(t -> t.id().equals(f.getKey())).findFirst().orElse(null);
                if (type == null) {
                    unsupported.add(new Unsupported("plugins." + f.getKey(), "Tapline runs extractors, loaders,"
                            + " mappers, transformers and utilities only (kept for the export)"));
                    otherPlugins.set(f.getKey(), Sanitizer.sanitize(f.getValue(), "MELTANO"));
                    return;
                }
                collectRaw(type, f.getValue(), "plugins." + f.getKey());
            });
        }
        for (Map.Entry<PluginType, Map<String, Overlay>> o : overlays.entrySet()) {
            for (Map.Entry<String, Overlay> e : o.getValue().entrySet()) {
                if (!raw.getOrDefault(o.getKey(), Map.of()).containsKey(e.getKey())) {
                    error(e.getValue().path() + ".name", "no " + o.getKey().id() + " plugin named '" + e.getKey()
                            + "' is defined under plugins");
                }
            }
        }
        List<PluginDef> plugins = new ArrayList<>();
        for (PluginType type : TYPES) {
            for (Raw r : raw.getOrDefault(type, Map.of()).values()) {
                PluginDef def = resolve(type, r.name());
                if (def != null) {
                    plugins.add(def);
                }
            }
        }
        plugins.addAll(mappings(plugins));

        // Schedules and jobs.
        Map<String, Integer> jobIndex = new LinkedHashMap<>();
        ArrayNode jobs = list(root, "jobs", "jobs");
        for (int i = 0; i < jobs.size(); i++) {
            String path = "jobs[" + i + "]";
            if (!(jobs.get(i) instanceof ObjectNode j) || text(j, "name", path + ".name") == null) {
                error(path + ".name", "is required");
                continue;
            }
            String name = j.get("name").asText();
            if (jobIndex.containsKey(name)) {
                error(path + ".name", "job '" + name + "' is defined twice");
            }
            jobIndex.put(name, i);
            j.fieldNames().forEachRemaining(k -> {
                if (!k.equals("name") && !k.equals("tasks")) {
                    unsupported.add(new Unsupported(path + "." + k, "not a job key Meltano uses"));
                }
            });
        }
        Map<String, PluginDef> byName = new HashMap<>();
        Map<String, PluginType> typeOf = new HashMap<>();
        for (PluginDef p : plugins) {
            byName.putIfAbsent(p.name(), p);
            typeOf.putIfAbsent(p.name(), p.type());
        }
        mapperOfMapping.keySet().forEach(m -> typeOf.putIfAbsent(m, PluginType.MAPPERS));
        List<PipelineDef> pipelines = new ArrayList<>();
        Set<String> scheduledJobs = new HashSet<>();
        Set<String> stateIds = new HashSet<>();
        Set<String> pipelineNames = new HashSet<>();
        List<String> schedulesWithoutTimezone = new ArrayList<>();
        ArrayNode schedules = list(root, "schedules", "schedules");
        for (int i = 0; i < schedules.size(); i++) {
            String path = "schedules[" + i + "]";
            if (!(schedules.get(i) instanceof ObjectNode s)) {
                error(path, "must be a mapping");
                continue;
            }
            String name = text(s, "name", path + ".name");
            if (name == null) {
                error(path + ".name", "is required");
                continue;
            }
            if (!Names.PLUGIN_NAME.matcher(name).matches()) {
                error(path + ".name", "must be 1 to 100 characters of lowercase letters, digits, '-' and '_' (it"
                        + " becomes the pipeline name)");
                continue;
            }
            String interval = text(s, "interval", path + ".interval");
            if (interval == null) {
                error(path + ".interval", "is required (a cron expression, @daily, ..., or @manual)");
            } else {
                check(path + ".interval", () -> Interval.parse(interval));
            }
            String timezone = text(s, "timezone", path + ".timezone");
            if (timezone != null) {
                check(path + ".timezone", () -> Interval.zone(timezone));
            } else if (interval != null && !List.of("@manual", "@none", "@once").contains(interval.trim())) {
                schedulesWithoutTimezone.add(name);
            }
            Map<String, String> own = stringMap(s, "env", path + ".env");
            String pipelineEnvironment = environment;
            String chosen = own.remove(ProjectExporter.ENVIRONMENT_VAR);
            if (chosen != null && !chosen.equals(environment)) {
                if (!envs.containsKey(chosen)) {
                    error(path + ".env." + ProjectExporter.ENVIRONMENT_VAR, "environment '" + chosen
                            + "' is not defined under environments");
                    continue;
                }
                pipelineEnvironment = chosen;
            }
            EnvSettings settings = settingsOf(pipelineEnvironment, envNames, envs);
            String suffix = settings.suffix();
            String suffixOverride = own.remove(ProjectExporter.SUFFIX_VAR);
            if (suffixOverride != null && !suffixOverride.isEmpty()) {
                suffix = suffixOverride.contains(":") || suffixOverride.contains("/") ? null : suffixOverride;
                if (suffix == null) {
                    error(path + ".env." + ProjectExporter.SUFFIX_VAR, "must not contain ':' or '/'");
                }
            }
            Map<String, String> env = new LinkedHashMap<>(settings.env());
            env.putAll(own);
            for (String k : List.of("start_date")) {
                if (s.has(k)) {
                    unsupported.add(new Unsupported(path + "." + k, "removed in Meltano 4; ignored"));
                }
            }
            s.fieldNames().forEachRemaining(k -> {
                if (!Set.of("name", "interval", "timezone", "env", "job", "extractor", "loader", "transform",
                        "start_date").contains(k)) {
                    unsupported.add(new Unsupported(path + "." + k, "not a schedule key Tapline uses"));
                }
            });
            String job = text(s, "job", path + ".job");
            PipelineDef def;
            if (job != null && !job.isEmpty()) {
                Integer j = jobIndex.get(job);
                if (j == null) {
                    error(path + ".job", "no job named '" + job + "' is defined under jobs");
                    continue;
                }
                scheduledJobs.add(job);
                def = jobPipeline(name, path, (ObjectNode) jobs.get(j), "jobs[" + j + "]", pipelineEnvironment,
                        suffix, interval, timezone, env, typeOf, byName);
            } else {
                def = elSchedule(s, name, path, pipelineEnvironment, interval, timezone, env, typeOf, plugins);
            }
            addPipeline(def, pipelines, stateIds, pipelineNames);
        }
        for (Map.Entry<String, Integer> j : jobIndex.entrySet()) {
            if (scheduledJobs.contains(j.getKey()) || !(jobs.get(j.getValue()) instanceof ObjectNode jn)) {
                continue;
            }
            String path = "jobs[" + j.getValue() + "]";
            if (!Names.PLUGIN_NAME.matcher(j.getKey()).matches()) {
                error(path + ".name", "must be 1 to 100 characters of lowercase letters, digits, '-' and '_' (it"
                        + " becomes the pipeline name)");
                continue;
            }
            addPipeline(jobPipeline(j.getKey(), path, jn, path, environment, stateIdSuffix, "@manual", null,
                    new LinkedHashMap<>(envEnv), typeOf, byName), pipelines, stateIds, pipelineNames);
        }

        // The rest of the document.
        root.fields().forEachRemaining(f -> {
            if (!TOP_LEVEL.contains(f.getKey())) {
                String reason = switch (f.getKey()) {
                    case "state_backend" -> "Tapline keeps state in PostgreSQL; to share it with Meltano set"
                            + " tapline.state.mirror-dir to this file backend's directory (kept for the export)";
                    case "project_id", "send_anonymous_usage_stats" -> "Meltano telemetry; Tapline sends none"
                            + " (kept for the export)";
                    default -> "not a key Tapline uses (kept for the export)";
                };
                unsupported.add(new Unsupported(f.getKey(), reason));
                document.set(f.getKey(), Sanitizer.sanitize(f.getValue(), "MELTANO_" + f.getKey()));
            }
        });
        if (defaultEnvironment != null) {
            document.put("default_environment", defaultEnvironment);
        }
        document.set("environments", docEnvironments);
        if (!otherPlugins.isEmpty()) {
            document.set("otherPlugins", otherPlugins);
        }
        ArrayNode hub = document.putArray(HUB_PLUGINS);
        raw.forEach((type, named) -> named.values().forEach(r -> {
            if (!r.node().has("namespace") && !r.node().has("inherit_from")) {
                hub.add(type.id() + "/" + r.name());
            }
        }));
        ArrayNode noTz = document.putArray("schedulesWithoutTimezone");
        schedulesWithoutTimezone.forEach(noTz::add);

        if (!errors.isEmpty()) {
            List<Problem.FieldError> sorted = List.copyOf(errors);
            throw new ProblemException(ProblemType.VALIDATION, sorted.size() == 1
                    ? "meltano.yml " + sorted.get(0).field() + ": " + sorted.get(0).message()
                    : "meltano.yml has " + sorted.size() + " problems: " + String.join(", ",
                    sorted.stream().map(Problem.FieldError::field).toList()) + ".", sorted);
        }
        return new ProjectModel(environment, defaultEnvironment, envNames, plugins, pipelines, unsupported, document);
    }

    /** The env and expanded state ID suffix of an environment (read once, errors on its YAML paths). */
    private EnvSettings settingsOf(String name, List<String> envNames, Map<String, ObjectNode> envs) {
        EnvSettings known = envSettings.get(name);
        if (known != null) {
            return known;
        }
        String path = "environments[" + envNames.indexOf(name) + "]";
        ObjectNode e = envs.get(name);
        Map<String, String> env = e == null ? new LinkedHashMap<>() : stringMap(e, "env", path + ".env");
        String raw = e == null ? null : text(e, "state_id_suffix", path + ".state_id_suffix");
        String suffix = raw == null || raw.isEmpty() ? null : expandSuffix(raw, env, path + ".state_id_suffix");
        EnvSettings s = new EnvSettings(env, suffix);
        envSettings.put(name, s);
        return s;
    }

    private void addPipeline(PipelineDef def, List<PipelineDef> pipelines, Set<String> stateIds, Set<String> names) {
        if (def == null) {
            return;
        }
        if (!names.add(def.name())) {
            error(def.path() + ".name", "a pipeline named '" + def.name() + "' is already made from another schedule"
                    + " or job");
            return;
        }
        String stateId = def.stateId() != null ? def.stateId()
                : io.tapline.pipeline.StateIds.derive(def.environment(), def.extractor(), def.loader(), def.stateIdSuffix());
        if (!stateIds.add(stateId)) {
            unsupported.add(new Unsupported(def.path(), "its state ID '" + stateId + "' is already used by another"
                    + " pipeline of this project; Tapline keeps one pipeline per state ID, so no pipeline was made"
                    + " for it"));
            return;
        }
        pipelines.add(def);
    }

    // ---- plugins -------------------------------------------------------------------------------

    private void collectRaw(PluginType type, JsonNode list, String path) {
        if (list == null || list.isNull()) {
            return;
        }
        if (!(list instanceof ArrayNode a)) {
            error(path, "must be a list of plugins");
            return;
        }
        Map<String, Raw> byName = raw.computeIfAbsent(type, t -> new LinkedHashMap<>());
        for (int i = 0; i < a.size(); i++) {
            String p = path + "[" + i + "]";
            if (!(a.get(i) instanceof ObjectNode o)) {
                error(p, "must be a mapping with a name");
                continue;
            }
            String name = text(o, "name", p + ".name");
            if (name == null) {
                error(p + ".name", "is required");
                continue;
            }
            if (!Names.PLUGIN_NAME.matcher(name).matches()) {
                error(p + ".name", "must be 1 to 100 characters of lowercase letters, digits, '-' and '_',"
                        + " starting with a letter or digit");
                continue;
            }
            if (byName.containsKey(name)) {
                error(p + ".name", "plugin '" + name + "' is defined twice under " + path);
                continue;
            }
            byName.put(name, new Raw(type, name, p, o));
        }
    }

    private PluginDef resolve(PluginType type, String name) {
        Map<String, PluginDef> done = resolved.computeIfAbsent(type, t -> new HashMap<>());
        if (done.containsKey(name)) {
            return done.get(name);
        }
        Raw r = raw.getOrDefault(type, Map.of()).get(name);
        if (r == null) {
            return null;
        }
        String key = type.id() + "/" + name;
        if (!resolving.add(key)) {
            error(r.path() + ".inherit_from", "inherits from itself through a cycle");
            done.put(name, null);
            return null;
        }
        try {
            PluginDef def = build(r);
            done.put(name, def);
            return def;
        } finally {
            resolving.remove(key);
        }
    }

    private PluginDef build(Raw r) {
        ObjectNode o = r.node();
        String path = r.path();
        String inheritFrom = text(o, "inherit_from", path + ".inherit_from");
        PluginDef parent = null;
        if (inheritFrom != null) {
            if (!raw.getOrDefault(r.type(), Map.of()).containsKey(inheritFrom)) {
                error(path + ".inherit_from", "no " + r.type().id() + " plugin named '" + inheritFrom + "' is defined"
                        + " in this project (Tapline does not look plugins up on Meltano Hub)");
                return null;
            }
            parent = resolve(r.type(), inheritFrom);
            if (parent == null) {
                return null;
            }
        }
        ObjectNode extras = parent == null ? JsonNodeFactory.instance.objectNode() : parent.extras().deepCopy();
        extras.remove(MAPPING_OF);
        o.fields().forEachRemaining(f -> {
            String k = f.getKey();
            if (MODELLED.contains(k) && !k.equals("settings")) {
                return;
            }
            extras.set(k, f.getValue());
            if (k.equals("settings") || DESCRIPTIVE.contains(k)) {
                return;
            }
            String reason = PLUGIN_KEY_REASONS.getOrDefault(k, "not a plugin key Tapline uses");
            unsupported.add(new Unsupported(path + "." + k, reason + " (kept for the export)"));
        });
        if (o.has("mappings") && r.type() != PluginType.MAPPERS) {
            unsupported.add(new Unsupported(path + ".mappings", "mappings are read for mappers only"));
        }

        String namespace = ownOr(o, "namespace", path, parent == null ? null : parent.namespace());
        String variant = ownOr(o, "variant", path, parent == null ? null : parent.variant());
        String pipUrl = ownOr(o, "pip_url", path, parent == null ? null : parent.pipUrl());
        String executable = text(o, "executable", path + ".executable");
        if (executable == null) {
            executable = parent != null ? parent.executable() : r.name();
        } else {
            executable = executable(executable.trim(), path + ".executable");
        }
        if (o.has("pip_url") && pipUrl != null) {
            String refused = io.tapline.plugin.install.PipUrl.parse(pipUrl).error();
            if (refused != null) {
                error(path + ".pip_url", refused);
            }
        }
        if (o.get("python") != null && o.get("python").isTextual()) {
            io.tapline.plugin.install.PipUrl.checkPython(o.get("python").asText().trim())
                    .ifPresent(m -> error(path + ".python", m));
        }
        List<String> capabilities = o.has("capabilities") ? strings(o, "capabilities", path + ".capabilities")
                : parent == null ? List.of() : parent.capabilities();
        ObjectNode config = parent == null ? JsonNodeFactory.instance.objectNode() : parent.config().deepCopy();
        ObjectNode ownConfig = object(o, "config", path + ".config");
        ownConfig.fields().forEachRemaining(f -> config.set(f.getKey(), f.getValue()));
        List<String> select = o.has("select") ? strings(o, "select", path + ".select")
                : parent == null ? List.of() : parent.select();
        ObjectNode metadata = o.has("metadata") ? object(o, "metadata", path + ".metadata")
                : parent == null ? JsonNodeFactory.instance.objectNode() : parent.metadata().deepCopy();
        Map<String, String> env = parent == null ? new LinkedHashMap<>() : new LinkedHashMap<>(parent.env());
        env.putAll(stringMap(o, "env", path + ".env"));
        if ((o.has("select") || o.has("metadata")) && r.type() != PluginType.EXTRACTORS) {
            unsupported.add(new Unsupported(path + (o.has("select") ? ".select" : ".metadata"),
                    "select and metadata apply to extractors only"));
        }

        // Settings: sensitive names.
        Set<String> sensitive = new LinkedHashSet<>(parent == null ? List.of() : parent.sensitive());
        JsonNode settings = extras.get("settings");
        if (settings != null && !settings.isNull()) {
            if (!(settings instanceof ArrayNode sa)) {
                error(path + ".settings", "must be a list of settings");
            } else {
                for (int i = 0; i < sa.size(); i++) {
                    String sp = path + ".settings[" + i + "]";
                    if (!(sa.get(i) instanceof ObjectNode s) || !s.path("name").isTextual()) {
                        error(sp + ".name", "is required");
                        continue;
                    }
                    String kind = s.path("kind").asText("");
                    if (kind.equals("password") || s.path("sensitive").asBoolean(false)) {
                        sensitive.add(s.get("name").asText());
                    }
                    if (o.has("settings") && s.has("value")) {
                        unsupported.add(new Unsupported(sp + ".value", "setting defaults are not applied; put the"
                                + " value in config"));
                    }
                }
            }
        }

        // The environment's overlay.
        Overlay overlay = overlays.getOrDefault(r.type(), Map.of()).get(r.name());
        if (overlay != null) {
            ObjectNode ov = overlay.node();
            ov.fields().forEachRemaining(f -> {
                String k = f.getKey();
                String p = overlay.path() + "." + k;
                switch (k) {
                    case "name" -> {
                    }
                    case "config" -> deepMerge(config, object(ov, "config", p));
                    case "metadata" -> deepMerge(metadata, object(ov, "metadata", p));
                    case "select" -> {
                        // replaces the plugin's select, below
                    }
                    case "env" -> env.putAll(stringMap(ov, "env", p));
                    default -> unsupported.add(new Unsupported(p, "only config, select, metadata and env of an"
                            + " environment overlay are applied"));
                }
            });
        }
        List<String> finalSelect = overlay != null && overlay.node().has("select")
                ? strings(overlay.node(), "select", overlay.path() + ".select") : select;
        return new PluginDef(r.type(), r.name(), path, executable, List.copyOf(capabilities), config,
                List.copyOf(sensitive), List.copyOf(finalSelect), metadata, env, namespace, variant, pipUrl,
                inheritFrom, extras);
    }

    /** One mapper per entry of a mapper's {@code mappings}: the mapping's config over the mapper's. */
    private List<PluginDef> mappings(List<PluginDef> plugins) {
        List<PluginDef> out = new ArrayList<>();
        Map<String, ObjectNode> folded = new HashMap<>();
        Set<String> taken = new HashSet<>();
        plugins.forEach(p -> taken.add(p.name()));
        for (PluginDef m : plugins) {
            if (m.type() != PluginType.MAPPERS || !(m.extras().get("mappings") instanceof ArrayNode list)) {
                continue;
            }
            for (int i = 0; i < list.size(); i++) {
                String path = m.path() + ".mappings[" + i + "]";
                if (!(list.get(i) instanceof ObjectNode mapping) || !mapping.path("name").isTextual()) {
                    error(path + ".name", "is required");
                    continue;
                }
                String name = mapping.get("name").asText();
                if (m.name().equals(mapping.path("annotations").path(ProjectExporter.ANNOTATION).path("mapper")
                        .asText(null))) {
                    // Tapline's export of a mapper made through the API: the mapping is that mapper.
                    if (!taken.add(name)) {
                        error(path + ".name", "'" + name + "' is also the name of a plugin or another mapping");
                        continue;
                    }
                    mapperOfMapping.put(name, m.name());
                    folded.put(m.name(), object(mapping, "config", path + ".config"));
                    continue;
                }
                if (!Names.PLUGIN_NAME.matcher(name).matches()) {
                    error(path + ".name", "must be a valid plugin name (it becomes a Tapline mapper)");
                    continue;
                }
                if (!taken.add(name)) {
                    error(path + ".name", "'" + name + "' is also the name of a plugin or another mapping");
                    continue;
                }
                ObjectNode config = m.config().deepCopy();
                deepMerge(config, object(mapping, "config", path + ".config"));
                ObjectNode extras = JsonNodeFactory.instance.objectNode();
                extras.put(MAPPING_OF, m.name());
                out.add(new PluginDef(PluginType.MAPPERS, name, path, m.executable(), m.capabilities(), config,
                        m.sensitive(), List.of(), JsonNodeFactory.instance.objectNode(), m.env(), m.namespace(),
                        m.variant(), m.pipUrl(), m.name(), extras));
            }
        }
        for (int k = 0; k < plugins.size(); k++) {
            PluginDef m = plugins.get(k);
            ObjectNode own = folded.get(m.name());
            if (m.type() != PluginType.MAPPERS || own == null) {
                continue;
            }
            ObjectNode config = m.config().deepCopy();
            deepMerge(config, own);
            ObjectNode extras = m.extras().deepCopy();
            extras.remove("mappings");
            plugins.set(k, new PluginDef(m.type(), m.name(), m.path(), m.executable(), m.capabilities(), config,
                    m.sensitive(), m.select(), m.metadata(), m.env(), m.namespace(), m.variant(), m.pipUrl(),
                    m.inheritFrom(), extras));
        }
        return out;
    }

    private Map<PluginType, Map<String, Overlay>> overlays(ObjectNode env, String path) {
        Map<PluginType, Map<String, Overlay>> out = new LinkedHashMap<>();
        JsonNode plugins = env.path("config").path("plugins");
        if (plugins.isMissingNode() || plugins.isNull()) {
            return out;
        }
        if (!(plugins instanceof ObjectNode p)) {
            error(path + ".config.plugins", "must be a mapping of plugin types");
            return out;
        }
        p.fields().forEachRemaining(f -> {
            String tp = path + ".config.plugins." + f.getKey();
            PluginType type = TYPES.stream().filter(t -> t.id().equals(f.getKey())).findFirst().orElse(null);
            if (type == null) {
                unsupported.add(new Unsupported(tp, "overlays of this plugin type are not applied"));
                return;
            }
            if (!(f.getValue() instanceof ArrayNode a)) {
                error(tp, "must be a list of plugin overlays");
                return;
            }
            for (int i = 0; i < a.size(); i++) {
                String ip = tp + "[" + i + "]";
                if (!(a.get(i) instanceof ObjectNode o) || !o.path("name").isTextual()) {
                    error(ip + ".name", "is required");
                    continue;
                }
                out.computeIfAbsent(type, t -> new LinkedHashMap<>()).put(o.get("name").asText(), new Overlay(ip, o));
            }
        });
        return out;
    }

    private String executable(String exe, String path) {
        if (exe.isEmpty()) {
            error(path, "must not be empty");
            return null;
        }
        if (exe.startsWith("/") || exe.indexOf('/') < 0) {
            return exe;
        }
        if (baseDir == null) {
            error(path, "is relative ('" + exe + "'); set tapline.projects.base-dir to the Meltano project directory"
                    + " so that it can be resolved, or use an absolute path or a command on PATH");
            return null;
        }
        Path base = baseDir.toAbsolutePath().normalize();
        Path p = base.resolve(exe).normalize();
        if (!p.startsWith(base)) {
            error(path, "'" + exe + "' leaves the project directory " + base);
            return null;
        }
        return p.toString();
    }

    // ---- pipelines -----------------------------------------------------------------------------

    private PipelineDef elSchedule(ObjectNode s, String name, String path, String environment, String interval,
                                   String timezone, Map<String, String> env, Map<String, PluginType> typeOf,
                                   List<PluginDef> plugins) {
        String extractor = text(s, "extractor", path + ".extractor");
        String loader = text(s, "loader", path + ".loader");
        if (extractor == null) {
            error(path + ".extractor", "is required in an extract-load schedule (or give a job)");
        } else if (typeOf.get(extractor) != PluginType.EXTRACTORS) {
            error(path + ".extractor", "no extractor named '" + extractor + "' is defined under plugins");
        }
        if (loader == null) {
            error(path + ".loader", "is required in an extract-load schedule (or give a job)");
        } else if (typeOf.get(loader) != PluginType.LOADERS) {
            error(path + ".loader", "no loader named '" + loader + "' is defined under plugins");
        }
        String transform = text(s, "transform", path + ".transform");
        String transformPlugin = null;
        List<String> args = List.of();
        if (transform != null && !transform.equals("skip")) {
            if (transform.equals("only")) {
                unsupported.add(new Unsupported(path + ".transform", "'only' (a transform without extract-load) is not"
                        + " a Tapline pipeline; no pipeline was made for this schedule"));
                return null;
            }
            if (!transform.equals("run")) {
                error(path + ".transform", "must be run, skip or only");
                return null;
            }
            List<PluginDef> transformers = plugins.stream().filter(p -> p.type() == PluginType.TRANSFORMERS).toList();
            if (transformers.size() == 1) {
                transformPlugin = transformers.get(0).name();
                args = List.of("run");
            } else {
                unsupported.add(new Unsupported(path + ".transform", "'run' needs exactly one transformer plugin"
                        + " (found " + transformers.size() + "); the pipeline was made without a transform step"));
            }
        }
        if (extractor == null || loader == null) {
            return null;
        }
        return new PipelineDef(name, path, extractor, List.of(), loader, transformPlugin, args, environment, null,
                name, interval, timezone, env, null);
    }

    private PipelineDef jobPipeline(String name, String path, ObjectNode job, String jobPath, String environment,
                                    String suffix, String interval, String timezone, Map<String, String> env,
                                    Map<String, PluginType> typeOf, Map<String, PluginDef> byName) {
        List<String[]> blocks = new ArrayList<>();
        JsonNode tasks = job.get("tasks");
        if (tasks == null || tasks.isNull()) {
            error(jobPath + ".tasks", "is required");
            return null;
        }
        if (tasks.isTextual()) {
            addBlocks(blocks, tasks.asText(), jobPath + ".tasks");
        } else if (tasks instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                JsonNode t = a.get(i);
                if (t.isTextual()) {
                    addBlocks(blocks, t.asText(), jobPath + ".tasks[" + i + "]");
                } else if (t instanceof ArrayNode inner) {
                    for (int k = 0; k < inner.size(); k++) {
                        if (!inner.get(k).isTextual()) {
                            error(jobPath + ".tasks[" + i + "][" + k + "]", "must be a string of plugin names");
                        } else {
                            addBlocks(blocks, inner.get(k).asText(), jobPath + ".tasks[" + i + "][" + k + "]");
                        }
                    }
                } else {
                    error(jobPath + ".tasks[" + i + "]", "must be a string or a list of strings");
                }
            }
        } else {
            error(jobPath + ".tasks", "must be a string or a list");
            return null;
        }
        int i = 0;
        while (i < blocks.size() && typeOf.get(blocks.get(i)[0]) != PluginType.EXTRACTORS) {
            String[] b = blocks.get(i);
            if (typeOf.containsKey(plugin(b[0])) || byName.containsKey(plugin(b[0]))) {
                unsupported.add(new Unsupported(b[1], "'" + b[0] + "' before the first extractor is not run by the"
                        + " pipeline"));
            } else {
                error(b[1], "'" + b[0] + "' is not a plugin defined under plugins");
            }
            i++;
        }
        if (i == blocks.size()) {
            error(jobPath + ".tasks", "has no extractor: a Tapline pipeline needs 'tap [mappers] target'");
            return null;
        }
        String extractor = blocks.get(i)[0];
        String extractorPath = blocks.get(i)[1];
        i++;
        List<String> mappers = new ArrayList<>();
        while (i < blocks.size() && typeOf.get(blocks.get(i)[0]) == PluginType.MAPPERS) {
            mappers.add(mapperOfMapping.getOrDefault(blocks.get(i)[0], blocks.get(i)[0]));
            i++;
        }
        if (i == blocks.size() || typeOf.get(blocks.get(i)[0]) != PluginType.LOADERS) {
            String got = i == blocks.size() ? "nothing" : "'" + blocks.get(i)[0] + "'";
            error(i == blocks.size() ? extractorPath : blocks.get(i)[1], "the extractor '" + extractor + "' must be"
                    + " followed by mappers and a loader; found " + got);
            return null;
        }
        String loader = blocks.get(i)[0];
        i++;
        String transform = null;
        List<String> args = List.of();
        if (i < blocks.size()) {
            String[] b = blocks.get(i);
            String plugin = plugin(b[0]);
            PluginType t = typeOf.get(plugin);
            if (t == PluginType.UTILITIES || t == PluginType.TRANSFORMERS) {
                transform = plugin;
                args = commandArgs(byName.get(plugin), b[0], b[1]);
                i++;
            }
        }
        for (; i < blocks.size(); i++) {
            String[] b = blocks.get(i);
            if (typeOf.containsKey(plugin(b[0]))) {
                unsupported.add(new Unsupported(b[1], "'" + b[0] + "': a Tapline pipeline runs one extract-load and"
                        + " one transform step; this task is not run"));
            } else {
                error(b[1], "'" + b[0] + "' is not a plugin defined under plugins");
            }
        }
        return new PipelineDef(name, path, extractor, mappers, loader, transform, args, environment, suffix, null,
                interval, timezone, env, job.get("name").asText());
    }

    private void addBlocks(List<String[]> blocks, String task, String path) {
        for (String word : task.trim().split("\\s+")) {
            if (!word.isEmpty()) {
                blocks.add(new String[] {word, path});
            }
        }
    }

    private static String plugin(String block) {
        int c = block.indexOf(':');
        return c < 0 ? block : block.substring(0, c);
    }

    /** Arguments of {@code plugin:command}: the command's {@code args} from {@code commands}, else the command name. */
    private List<String> commandArgs(PluginDef plugin, String block, String path) {
        int c = block.indexOf(':');
        if (c < 0) {
            return List.of();
        }
        String command = block.substring(c + 1);
        JsonNode def = plugin == null ? null : plugin.extras().path("commands").get(command);
        if (def != null) {
            JsonNode args = def.isTextual() ? def : def.get("args");
            if (args != null && args.isTextual()) {
                return List.of(args.asText().trim().split("\\s+"));
            }
            unsupported.add(new Unsupported(path, "command '" + command + "' has no args string; '" + command
                    + "' is passed as the argument"));
        }
        return List.of(command);
    }

    private String expandSuffix(String suffix, Map<String, String> env, String path) {
        Matcher m = STATE_SUFFIX_REF.matcher(suffix);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String v = env.get(name);
            if (v == null) {
                unsupported.add(new Unsupported(path, "refers to $" + name + ", which the environment's env does not"
                        + " define; Tapline cannot expand it in a state ID, so the suffix is not used"));
                return null;
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(v));
        }
        m.appendTail(sb);
        String s = sb.toString();
        if (s.contains(":") || s.contains("/")) {
            error(path, "must not contain ':' or '/'");
            return null;
        }
        return s;
    }

    // ---- helpers -------------------------------------------------------------------------------

    private String ownOr(ObjectNode o, String key, String path, String inherited) {
        String v = text(o, key, path + "." + key);
        return v != null ? v : inherited;
    }

    private static void deepMerge(ObjectNode target, ObjectNode overlay) {
        overlay.fields().forEachRemaining(f -> {
            JsonNode existing = target.get(f.getKey());
            if (existing instanceof ObjectNode eo && f.getValue() instanceof ObjectNode fo) {
                deepMerge(eo, fo);
            } else {
                target.set(f.getKey(), f.getValue().deepCopy());
            }
        });
    }

    private String text(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode()) {
            error(path, "must be a single value, not a " + (v.isArray() ? "list" : "mapping"));
            return null;
        }
        return v.asText();
    }

    private ArrayNode list(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v instanceof ArrayNode a) {
            return a;
        }
        if (v != null && !v.isNull()) {
            error(path, "must be a list");
        }
        return JsonNodeFactory.instance.arrayNode();
    }

    private ObjectNode object(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v instanceof ObjectNode ob) {
            return ob.deepCopy();
        }
        if (v != null && !v.isNull()) {
            error(path, "must be a mapping");
        }
        return JsonNodeFactory.instance.objectNode();
    }

    private List<String> strings(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        List<String> out = new ArrayList<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (!(v instanceof ArrayNode a)) {
            error(path, "must be a list of strings");
            return out;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).isValueNode() || a.get(i).isNull()) {
                error(path + "[" + i + "]", "must be a string");
            } else {
                out.add(a.get(i).asText());
            }
        }
        return out;
    }

    private Map<String, String> stringMap(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (!(v instanceof ObjectNode ob)) {
            error(path, "must be a mapping of variable names to values");
            return out;
        }
        ob.fields().forEachRemaining(f -> {
            if (!Names.ENV_VAR.matcher(f.getKey()).matches()) {
                error(path + "." + f.getKey(), "is not a valid environment variable name");
            } else if (!f.getValue().isValueNode() || f.getValue().isNull()) {
                error(path + "." + f.getKey(), "must be a single value");
            } else {
                out.put(f.getKey(), f.getValue().asText());
            }
        });
        return out;
    }

    private void check(String path, Runnable check) {
        try {
            check.run();
        } catch (ProblemException e) {
            String msg = e.errors() != null && !e.errors().isEmpty() ? e.errors().get(0).message() : e.getMessage();
            error(path, msg);
        }
    }

    private void error(String path, String message) {
        int line = parsed.line(path);
        errors.add(new Problem.FieldError(path, message + (line > 0 ? " (line " + line + ")" : "")));
    }
}
