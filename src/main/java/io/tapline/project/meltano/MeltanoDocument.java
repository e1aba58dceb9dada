package io.tapline.project.meltano;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.plugin.PluginType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A meltano.yml as written, as typed records (Meltano 4.2.2, meltano-state.md §5; JSON schema
 * {@code src/meltano/schemas/meltano.schema.json}). Nothing is resolved here: no inheritance, no
 * environment overlay merged, no pipeline made; every environment keeps its own overlays and every
 * job its tasks in the shape written. {@link DocumentBinder} binds it from a checked tree.
 *
 * <p>Conventions of every record: a key that is not written is null (lists and mappings of the
 * document itself are empty instead); an entry of a list that could not be read (not a mapping,
 * no name) is a null element, so that an element's index is its index in the YAML
 * ({@code plugins.extractors[2]}); {@code extras} holds every other key as written, in document
 * order (a YAML null as {@link NullNode}; {@link DocumentBinder} gathers them). Single values ({@code name}, {@code pip_url}, ...) are
 * text even where the YAML has a number or a boolean, as Meltano reads them.
 *
 * @param version {@code version} (1; anything else is an error of the check), or null
 * @param defaultEnvironment {@code default_environment}, or null
 * @param environments {@code environments}
 * @param plugins {@code plugins}, by type
 * @param schedules {@code schedules}: job schedules and legacy extract-load schedules
 * @param jobs {@code jobs}
 * @param stateBackend {@code state_backend}, or null
 * @param extras other top-level keys ({@code project_id}, {@code send_anonymous_usage_stats}, ...)
 */
public record MeltanoDocument(Integer version, String defaultEnvironment, List<Environment> environments,
                              Plugins plugins, List<Schedule> schedules, List<Job> jobs, StateBackend stateBackend,
                              Map<String, JsonNode> extras) {

    public MeltanoDocument {
        environments = list(environments);
        plugins = plugins == null ? new Plugins(null, null, null, null, null, null) : plugins;
        schedules = list(schedules);
        jobs = list(jobs);
        extras = kept(extras);
    }

    /**
     * An entry of {@code environments}.
     *
     * @param name {@code name} (letters, digits, {@code -}, {@code _}; never {@code :})
     * @param config {@code config}: the plugin overlays, or null
     * @param env {@code env}: variables for every plugin run in this environment, or null
     * @param stateIdSuffix {@code state_id_suffix} as written ({@code ${VAR}} not expanded), or null
     * @param extras other keys
     */
    public record Environment(String name, EnvironmentConfig config, Map<String, String> env, String stateIdSuffix,
                              Map<String, JsonNode> extras) {
        public Environment {
            extras = kept(extras);
        }

        /** The overlays of plugins of one type; empty when none. */
        public List<PluginOverlay> overlays(PluginType type) {
            return config == null || config.plugins() == null ? List.of() : config.plugins().of(type);
        }
    }

    /**
     * An environment's {@code config}.
     *
     * @param plugins {@code plugins}: overlays by type, or null
     * @param extras other keys (Meltano reads only {@code plugins} here)
     */
    public record EnvironmentConfig(PluginOverlays plugins, Map<String, JsonNode> extras) {
        public EnvironmentConfig {
            extras = kept(extras);
        }
    }

    /**
     * An environment's {@code config.plugins}.
     *
     * @param extras plugin types Tapline does not run ({@code orchestrators}, ...), as written
     */
    public record PluginOverlays(List<PluginOverlay> extractors, List<PluginOverlay> loaders,
                                 List<PluginOverlay> mappers, List<PluginOverlay> transformers,
                                 List<PluginOverlay> utilities, Map<String, JsonNode> extras) {
        public PluginOverlays {
            extractors = list(extractors);
            loaders = list(loaders);
            mappers = list(mappers);
            transformers = list(transformers);
            utilities = list(utilities);
            extras = kept(extras);
        }

        /** The overlays of one type. */
        public List<PluginOverlay> of(PluginType type) {
            return switch (type) {
                case EXTRACTORS -> extractors;
                case LOADERS -> loaders;
                case MAPPERS -> mappers;
                case TRANSFORMERS -> transformers;
                case UTILITIES -> utilities;
            };
        }
    }

    /**
     * One plugin's overlay in an environment: merged over the plugin's own values when the
     * environment is used.
     *
     * @param name the plugin it overlays
     * @param config config, deep-merged over the plugin's; or null
     * @param select select patterns, replacing the plugin's; or null
     * @param metadata metadata rules, deep-merged over the plugin's; or null
     * @param env variables, over the plugin's; or null
     * @param extras other keys ({@code schema}, ...)
     */
    public record PluginOverlay(String name, ObjectNode config, List<String> select, ObjectNode metadata,
                                Map<String, String> env, Map<String, JsonNode> extras) {
        public PluginOverlay {
            extras = kept(extras);
        }
    }

    /**
     * {@code plugins}, by type.
     *
     * @param extras plugin types Tapline does not run ({@code orchestrators}, {@code files}, ...), as written
     */
    public record Plugins(List<Plugin> extractors, List<Plugin> loaders, List<Plugin> mappers,
                          List<Plugin> transformers, List<Plugin> utilities,
                          Map<String, JsonNode> extras) {
        public Plugins {
            extractors = list(extractors);
            loaders = list(loaders);
            mappers = list(mappers);
            transformers = list(transformers);
            utilities = list(utilities);
            extras = kept(extras);
        }

        /** The plugins of one type, in document order (null for an entry that could not be read). */
        public List<Plugin> of(PluginType type) {
            return switch (type) {
                case EXTRACTORS -> extractors;
                case LOADERS -> loaders;
                case MAPPERS -> mappers;
                case TRANSFORMERS -> transformers;
                case UTILITIES -> utilities;
            };
        }
    }

    /**
     * A plugin entry: the generic keys of Meltano's {@code $defs.plugins} that Tapline stores as
     * fields, and every other key in {@code extras}. {@code settings}, {@code commands},
     * {@code mappings} and {@code python} are kept as written in {@code extras} (so the export
     * gives them back in their order) and read through the typed views below.
     *
     * @param name {@code name}
     * @param inheritFrom {@code inherit_from}, or null
     * @param namespace {@code namespace}, or null
     * @param variant {@code variant}, or null
     * @param pipUrl {@code pip_url}, or null
     * @param executable {@code executable}, or null (Meltano runs the plugin name)
     * @param capabilities {@code capabilities}, or null when not written (then inherited)
     * @param config {@code config}, or null
     * @param select {@code select} (extractors), or null when not written (then inherited)
     * @param metadata {@code metadata} (extractors), or null when not written (then inherited)
     * @param env {@code env}, or null
     * @param extras every other key, as written
     */
    public record Plugin(String name, String inheritFrom, String namespace, String variant, String pipUrl,
                         String executable, List<String> capabilities, ObjectNode config, List<String> select,
                         ObjectNode metadata, Map<String, String> env,
                         Map<String, JsonNode> extras) {
        public Plugin {
            extras = kept(extras);
        }

        /** {@code settings}, where written as a list (an entry that is not a mapping with a name: null). */
        public List<Setting> settings() {
            return DocumentBinder.bindEach(extras.get("settings"), Setting.class);
        }

        /** {@code mappings} (mappers), where written as a list (an entry that is not a mapping with a name: null). */
        public List<Mapping> mappings() {
            return DocumentBinder.bindEach(extras.get("mappings"), Mapping.class);
        }

        /** {@code commands}: the command of that name, or null. */
        public Command command(String name) {
            JsonNode c = extras.get("commands") == null ? null : extras.get("commands").get(name);
            return c == null ? null : Command.of(c);
        }

        /** {@code python} when written as text, else null. */
        public String python() {
            JsonNode p = extras.get("python");
            return p != null && p.isTextual() ? p.asText() : null;
        }
    }

    /**
     * An entry of a plugin's {@code settings}. Kept loose as Meltano's: only the name is required.
     *
     * @param name {@code name}
     * @param kind {@code kind} ({@code password}, {@code string}, {@code array}, ...), or null
     * @param sensitive {@code sensitive}, or null
     * @param value {@code value} (a default), or null when not written ({@link NullNode} for {@code value: null})
     * @param extras other keys ({@code label}, {@code description}, ...)
     */
    public record Setting(String name, JsonNode kind, JsonNode sensitive, JsonNode value,
                          Map<String, JsonNode> extras) {
        public Setting {
            extras = kept(extras);
        }

        /** Secret for Meltano: {@code kind: password} or a true {@code sensitive}. */
        public boolean secret() {
            return (kind != null && kind.asText("").equals("password")) || (sensitive != null && sensitive.asBoolean(false));
        }
    }

    /**
     * An entry of a mapper's {@code mappings}: Meltano runs the mapper through it under its name.
     *
     * @param name {@code name}
     * @param config {@code config}, over the mapper's; or null
     * @param annotations {@code annotations}, or null
     * @param extras other keys
     */
    public record Mapping(String name, ObjectNode config, JsonNode annotations,
                          Map<String, JsonNode> extras) {
        public Mapping {
            extras = kept(extras);
        }
    }

    /**
     * An entry of a plugin's {@code commands}: written as the argument string, or as a mapping
     * with {@code args} (and {@code description}, {@code executable}, ...).
     *
     * @param args the argument string, or null when not written as text
     * @param written the command as written
     */
    public record Command(String args, JsonNode written) {
        /** Reads either form. */
        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        public static Command of(JsonNode written) {
            JsonNode a = written.isTextual() ? written : written.get("args");
            return new Command(a != null && a.isTextual() ? a.asText() : null, written);
        }
    }

    /**
     * An entry of {@code schedules}: a job schedule (with {@code job}) or a legacy extract-load
     * schedule ({@code extractor}, {@code loader}, {@code transform}), as Meltano tells them apart
     * (a truthy {@code job}).
     *
     * @param name {@code name}
     * @param interval {@code interval}, or null
     * @param timezone {@code timezone} (a Tapline key Meltano ignores), or null
     * @param env {@code env}, or null
     * @param job {@code job}, or null
     * @param extractor {@code extractor} (extract-load form), or null
     * @param loader {@code loader} (extract-load form), or null
     * @param transform {@code transform} ({@code run}, {@code skip}, {@code only}), or null
     * @param extras other keys ({@code start_date}, removed in Meltano 4, among them)
     */
    public record Schedule(String name, String interval, String timezone, Map<String, String> env, String job,
                           String extractor, String loader, String transform,
                           Map<String, JsonNode> extras) {
        public Schedule {
            extras = kept(extras);
        }

        /** True for the job form: a non-empty {@code job}. */
        public boolean isJobSchedule() {
            return job != null && !job.isEmpty();
        }
    }

    /**
     * An entry of {@code jobs}.
     *
     * @param name {@code name}
     * @param tasks {@code tasks}, or null when not written
     * @param extras other keys
     */
    public record Job(String name, Tasks tasks, Map<String, JsonNode> extras) {
        public Job {
            extras = kept(extras);
        }
    }

    /**
     * A job's {@code tasks}: one string, or a list whose items are strings or lists of strings
     * ({@code TaskSets}, {@code src/meltano/core/task_sets.py}).
     *
     * @param text the one-string form, or null
     * @param items the list form, or null
     */
    public record Tasks(String text, List<Task> items) {
        /** Reads either form (the check has refused every other shape). */
        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        public static Tasks of(JsonNode written) {
            if (written.isTextual()) {
                return new Tasks(written.asText(), null);
            }
            List<Task> items = new ArrayList<>();
            written.forEach(t -> items.add(Task.of(t)));
            return new Tasks(null, List.copyOf(items));
        }

        /** True for the one-string form. */
        public boolean single() {
            return text != null;
        }
    }

    /**
     * An item of the list form of {@code tasks}: a string, or a list of strings.
     *
     * @param text the string form, or null
     * @param texts the list form, or null
     */
    public record Task(String text, List<String> texts) {
        static Task of(JsonNode t) {
            if (t.isTextual()) {
                return new Task(t.asText(), null);
            }
            List<String> texts = new ArrayList<>();
            t.forEach(s -> texts.add(s.isTextual() ? s.asText() : null));
            return new Task(null, Collections.unmodifiableList(texts));
        }
    }

    /**
     * {@code state_backend}: where Meltano keeps state (Tapline keeps it in PostgreSQL and mirrors
     * it to a file backend's directory, meltano-state.md §5).
     *
     * @param uri {@code uri} ({@code systemdb}, {@code file:///dir}, {@code s3://...}, ...), or null
     * @param settings every other setting ({@code lock_timeout_seconds}, {@code s3}, {@code azure}, ...), as written
     */
    public record StateBackend(String uri, Map<String, JsonNode> settings) {
        public StateBackend {
            settings = kept(settings);
        }
    }

    /** A list with null elements kept (entries that could not be read), unmodifiable; empty for null. */
    static <T> List<T> list(List<T> l) {
        return l == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(l));
    }

    /** Extras in document order, YAML nulls as {@link NullNode}, unmodifiable; empty for null. */
    static Map<String, JsonNode> kept(Map<String, JsonNode> m) {
        if (m == null || m.isEmpty()) {
            return Map.of();
        }
        Map<String, JsonNode> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v == null ? NullNode.instance : v));
        return Collections.unmodifiableMap(out);
    }
}
