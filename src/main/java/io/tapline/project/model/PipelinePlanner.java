package io.tapline.project.model;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.api.Names;
import io.tapline.pipeline.schedule.Interval;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.Conventions;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument;
import io.tapline.project.meltano.MeltanoDocument.Job;
import io.tapline.project.meltano.MeltanoDocument.Schedule;
import io.tapline.project.model.ProjectModel.PipelineDef;
import io.tapline.project.model.ProjectModel.PluginDef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pipelines of a meltano.yml:
 * <ul>
 *   <li>an extract-load schedule becomes a pipeline whose state ID is the schedule name (Meltano
 *   runs {@code meltano elt --state-id=<schedule name>}); {@code transform: run} uses the project's
 *   only transformer with the argument {@code run};</li>
 *   <li>a job schedule becomes a pipeline of the job's steps ({@link TaskBlocks}) with the
 *   {@code meltano run} state ID {@code <env>:<tap>-to-<target>[:<suffix>]};</li>
 *   <li>a job without a schedule becomes a {@code @manual} pipeline named after the job.</li>
 * </ul>
 * A schedule's env may name its environment ({@code MELTANO_ENVIRONMENT}) and state ID suffix
 * ({@code MELTANO_RUN_STATE_ID_SUFFIX}), as {@code meltano schedule run} passes them on; neither
 * goes into the pipeline's env. Names and state IDs taken twice: {@link PipelineConflicts}.
 *
 * <p>For the import of every environment ({@link EnvironmentChoice#ALL}) a schedule or job that
 * does not name its environment becomes a pipeline in each environment: named after it in the
 * chosen (default) environment and {@code <name>-<environment>} in the others, each with its
 * environment's {@code env} and {@code state_id_suffix}, so a job's state ID is
 * {@code <environment>:<tap>-to-<target>[:<suffix>]} as {@code meltano --environment <environment>
 * run} computes it; an extract-load schedule keeps its name as the state ID in every environment.
 */
final class PipelinePlanner {

    private static final String NAME_RULE = "must be 1 to 100 characters of lowercase letters, digits, '-' and '_'"
            + " (it becomes the pipeline name)";

    private final MeltanoDocument doc;
    private final EnvironmentChoice environments;
    private final Issues issues;
    private final List<PluginDef> plugins;
    private final Map<String, PluginType> typeOf = new HashMap<>();
    private final TaskBlocks tasks;
    private final PipelineConflicts conflicts;
    private final List<String> withoutTimezone = new ArrayList<>();
    /** The pipelines made in the chosen environment that are made in every other one too. */
    private final List<PerEnvironment> everywhere = new ArrayList<>();
    private final Map<String, Map<String, String>> perEnvironment = new LinkedHashMap<>();

    /**
     * A pipeline of the chosen environment that the other environments get too.
     *
     * @param origin {@code schedules/<name>} or {@code jobs/<name>}
     * @param def the pipeline in the chosen environment
     * @param own the schedule's own env (without the environment's)
     * @param suffix the schedule's {@code MELTANO_RUN_STATE_ID_SUFFIX}, or null
     */
    private record PerEnvironment(String origin, PipelineDef def, Map<String, String> own, String suffix) {
    }

    /**
     * @param plugins every plugin of the project (mappings' mappers included)
     * @param mapperOfMapping mapping names that stand for a mapper ({@link MapperMappings#mapperOfMapping()})
     */
    PipelinePlanner(MeltanoDocument doc, EnvironmentChoice environments, List<PluginDef> plugins,
                    Map<String, String> mapperOfMapping, Issues issues) {
        this.doc = doc;
        this.environments = environments;
        this.issues = issues;
        this.plugins = plugins;
        Map<String, PluginDef> byName = new HashMap<>();
        for (PluginDef p : plugins) {
            byName.putIfAbsent(p.name(), p);
            typeOf.putIfAbsent(p.name(), p.type());
        }
        mapperOfMapping.keySet().forEach(m -> typeOf.putIfAbsent(m, PluginType.MAPPERS));
        this.tasks = new TaskBlocks(issues, typeOf, byName, mapperOfMapping);
        this.conflicts = new PipelineConflicts(issues);
    }

    /** The pipelines: schedules first, then the jobs no schedule names. */
    List<PipelineDef> plan() {
        Map<String, Integer> jobIndex = jobs();
        Set<String> scheduled = new HashSet<>();
        List<Schedule> schedules = doc.schedules();
        for (int i = 0; i < schedules.size(); i++) {
            if (schedules.get(i) != null) {
                schedule(schedules.get(i), "schedules[" + i + "]", jobIndex, scheduled);
            }
        }
        EnvironmentChoice.Settings active = environments.active();
        for (Map.Entry<String, Integer> j : jobIndex.entrySet()) {
            if (scheduled.contains(j.getKey())) {
                continue;
            }
            String path = "jobs[" + j.getValue() + "]";
            if (!Names.PLUGIN_NAME.matcher(j.getKey()).matches()) {
                issues.error(path + ".name", NAME_RULE);
                continue;
            }
            PipelineDef def = jobPipeline(j.getKey(), path, doc.jobs().get(j.getValue()), path, environments.chosen(),
                    active.suffix(), "@manual", null, new LinkedHashMap<>(active.env()), null);
            conflicts.add(def);
            everywhere("jobs/" + j.getKey(), def, Map.of(), null);
        }
        List<String> others = environments.pipelineEnvironments().subList(1, environments.pipelineEnvironments().size());
        for (PerEnvironment p : everywhere) {
            Map<String, String> names = new LinkedHashMap<>();
            names.put(p.def().environment(), p.def().name());
            for (String environment : others) {
                PipelineDef def = inEnvironment(p, environment);
                if (def != null) {
                    conflicts.add(def);
                    names.put(environment, def.name());
                }
            }
            if (!others.isEmpty()) {
                perEnvironment.put(p.origin(), names);
            }
        }
        return conflicts.pipelines();
    }

    /**
     * For the import of every environment: which pipeline each schedule or job made in each
     * environment, by {@code schedules/<name>} or {@code jobs/<name>} (empty otherwise).
     */
    Map<String, Map<String, String>> perEnvironment() {
        return perEnvironment;
    }

    private void everywhere(String origin, PipelineDef def, Map<String, String> own, String suffix) {
        if (def != null) {
            everywhere.add(new PerEnvironment(origin, def, Map.copyOf(own), suffix));
        }
    }

    /** The pipeline of {@code p} in another environment, or null (an error reported) when its name is invalid. */
    private PipelineDef inEnvironment(PerEnvironment p, String environment) {
        PipelineDef d = p.def();
        String name = d.name() + "-" + environment;
        if (!Names.PLUGIN_NAME.matcher(name).matches()) {
            issues.error(d.path() + ".name", "the pipeline made for environment '" + environment + "' would be named '"
                    + name + "', which is not 1 to 100 characters of lowercase letters, digits, '-' and '_'");
            return null;
        }
        EnvironmentChoice.Settings settings = environments.settingsOf(environment);
        Map<String, String> env = new LinkedHashMap<>(settings.env());
        env.putAll(p.own());
        String suffix = p.suffix() != null ? p.suffix() : d.stateId() != null ? null : settings.suffix();
        return new PipelineDef(name, d.path(), d.extractor(), d.mappers(), d.loader(), d.transform(),
                d.transformArgs(), environment, suffix, d.stateId(), d.interval(), d.timezone(), env, d.meltanoJob(),
                d.enabled());
    }

    /** Schedules that give no {@code timezone} and run by themselves (not {@code @manual}, {@code @none}, {@code @once}). */
    List<String> schedulesWithoutTimezone() {
        return List.copyOf(withoutTimezone);
    }

    /** The index of each job by name (the last of a name given twice); reports names twice and unknown keys. */
    private Map<String, Integer> jobs() {
        Map<String, Integer> index = new LinkedHashMap<>();
        List<Job> jobs = doc.jobs();
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            if (j == null) {
                continue;
            }
            String path = "jobs[" + i + "]";
            if (index.containsKey(j.name())) {
                issues.error(path + ".name", "job '" + j.name() + "' is defined twice");
            }
            index.put(j.name(), i);
            j.extras().keySet().forEach(k -> issues.unsupported(path + "." + k, "not a job key Meltano uses"));
        }
        return index;
    }

    private void schedule(Schedule s, String path, Map<String, Integer> jobIndex, Set<String> scheduled) {
        String name = s.name();
        if (!Names.PLUGIN_NAME.matcher(name).matches()) {
            issues.error(path + ".name", NAME_RULE);
            return;
        }
        JsonNode tapline = s.extras().get("annotations") == null ? null
                : s.extras().get("annotations").get(Conventions.ANNOTATION);
        Boolean enabled = null;
        String interval = s.interval();
        if (tapline != null && tapline.has(Conventions.PAUSED)) {
            if (!tapline.get(Conventions.PAUSED).isBoolean()) {
                issues.error(path + ".annotations.tapline.paused", "must be true or false");
            } else {
                enabled = !tapline.get(Conventions.PAUSED).asBoolean();
            }
            if (tapline.path(Conventions.INTERVAL).isTextual()) {
                interval = tapline.get(Conventions.INTERVAL).asText(); // Tapline's; Meltano's is @manual
            }
        }
        if (interval == null) {
            issues.error(path + ".interval", "is required (a cron expression, @daily, ..., or @manual)");
        } else {
            String checked = interval;
            issues.check(path + ".interval", () -> Interval.parse(checked));
        }
        String timezone = s.timezone();
        if (timezone != null) {
            issues.check(path + ".timezone", () -> Interval.zone(timezone));
        } else if (interval != null && !List.of("@manual", "@none", "@once").contains(interval.trim())
                && !Boolean.FALSE.equals(enabled)) {
            withoutTimezone.add(name);
        }
        Map<String, String> own = s.env() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(s.env());
        String environment = environments.chosen();
        String chosen = own.remove(Conventions.ENVIRONMENT_VAR);
        if (chosen != null && !chosen.equals(environment)) {
            if (!environments.defines(chosen)) {
                issues.error(path + ".env." + Conventions.ENVIRONMENT_VAR, "environment '" + chosen
                        + "' is not defined under environments");
                return;
            }
            environment = chosen;
        }
        EnvironmentChoice.Settings settings = environments.settingsOf(environment);
        String suffix = settings.suffix();
        String suffixOverride = own.remove(Conventions.SUFFIX_VAR);
        if (suffixOverride != null && !suffixOverride.isEmpty()) {
            suffix = suffixOverride.contains(":") || suffixOverride.contains("/") ? null : suffixOverride;
            if (suffix == null) {
                issues.error(path + ".env." + Conventions.SUFFIX_VAR, "must not contain ':' or '/'");
            }
        }
        Map<String, String> env = new LinkedHashMap<>(settings.env());
        env.putAll(own);
        if (s.extras().containsKey("start_date")) {
            issues.unsupported(path + ".start_date", "removed in Meltano 4; ignored");
        }
        s.extras().keySet().forEach(k -> {
            if (!k.equals("start_date") && !k.equals("annotations")) {
                issues.unsupported(path + "." + k, "not a schedule key Tapline uses");
            }
        });
        if (s.isJobSchedule()) {
            Integer j = jobIndex.get(s.job());
            if (j == null) {
                issues.error(path + ".job", "no job named '" + s.job() + "' is defined under jobs");
                return;
            }
            scheduled.add(s.job());
            PipelineDef def = jobPipeline(name, path, doc.jobs().get(j), "jobs[" + j + "]", environment, suffix,
                    interval, timezone, env, enabled);
            conflicts.add(def);
            if (chosen == null) {
                everywhere("schedules/" + name, def, own, suffixOverride == null || suffixOverride.isEmpty() ? null
                        : suffix);
            }
        } else {
            PipelineDef def = extractLoad(s, path, environment, interval, timezone, env, enabled);
            conflicts.add(def);
            if (chosen == null) {
                everywhere("schedules/" + name, def, own, null);
            }
        }
    }

    private PipelineDef extractLoad(Schedule s, String path, String environment, String interval, String timezone,
                                    Map<String, String> env, Boolean enabled) {
        String extractor = s.extractor();
        String loader = s.loader();
        if (extractor == null) {
            issues.error(path + ".extractor", "is required in an extract-load schedule (or give a job)");
        } else if (typeOf.get(extractor) != PluginType.EXTRACTORS) {
            issues.error(path + ".extractor", "no extractor named '" + extractor + "' is defined under plugins");
        }
        if (loader == null) {
            issues.error(path + ".loader", "is required in an extract-load schedule (or give a job)");
        } else if (typeOf.get(loader) != PluginType.LOADERS) {
            issues.error(path + ".loader", "no loader named '" + loader + "' is defined under plugins");
        }
        String transform = s.transform();
        String transformPlugin = null;
        List<String> args = List.of();
        if (transform != null && !transform.equals("skip")) {
            if (transform.equals("only")) {
                issues.unsupported(path + ".transform", "'only' (a transform without extract-load) is not a Tapline"
                        + " pipeline; no pipeline was made for this schedule");
                return null;
            }
            if (!transform.equals("run")) {
                issues.error(path + ".transform", "must be run, skip or only");
                return null;
            }
            List<PluginDef> transformers = plugins.stream().filter(p -> p.type() == PluginType.TRANSFORMERS).toList();
            if (transformers.size() == 1) {
                transformPlugin = transformers.get(0).name();
                args = List.of("run");
            } else {
                issues.unsupported(path + ".transform", "'run' needs exactly one transformer plugin (found "
                        + transformers.size() + "); the pipeline was made without a transform step");
            }
        }
        if (extractor == null || loader == null) {
            return null;
        }
        return new PipelineDef(s.name(), path, extractor, List.of(), loader, transformPlugin, args, environment, null,
                s.name(), interval, timezone, env, null, enabled);
    }

    private PipelineDef jobPipeline(String name, String path, Job job, String jobPath, String environment,
                                    String suffix, String interval, String timezone, Map<String, String> env,
                                    Boolean enabled) {
        TaskBlocks.Steps steps = tasks.steps(job.tasks(), jobPath);
        if (steps == null) {
            return null;
        }
        return new PipelineDef(name, path, steps.extractor(), steps.mappers(), steps.loader(), steps.transform(),
                steps.transformArgs(), environment, suffix, null, interval, timezone, env, job.name(), enabled);
    }
}
