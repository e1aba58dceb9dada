package io.tapline.project.meltano;

import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The conventions that the import and the export share: the keys and variables by which a
 * meltano.yml written by Tapline carries what Meltano has no key for, and the expansion of an
 * environment's {@code state_id_suffix} (meltano-state.md §3, §5).
 */
public final class Conventions {

    /** Schedule env var that selects the Meltano environment of {@code meltano schedule run}. */
    public static final String ENVIRONMENT_VAR = "MELTANO_ENVIRONMENT";
    /** Schedule env var of {@code meltano run --state-id-suffix}. */
    public static final String SUFFIX_VAR = "MELTANO_RUN_STATE_ID_SUFFIX";
    /** Annotation key ({@code annotations.tapline.mapper}) of a mapping that stands for a Tapline mapper. */
    public static final String ANNOTATION = "tapline";
    /** {@code annotations.tapline.args} of a plugin: the arguments Tapline starts it with (Meltano has no such key). */
    public static final String ARGS = "args";
    /**
     * {@code annotations.tapline.paused: true} of a schedule: Tapline's schedule is paused; its
     * {@code interval} is then {@code @manual} (Meltano has no pause) and Tapline's own interval is
     * {@code annotations.tapline.interval}.
     */
    public static final String PAUSED = "paused";
    /** {@code annotations.tapline.interval} of a paused schedule. */
    public static final String INTERVAL = "interval";
    /** Marks a stored mapper made from another mapper's {@code mappings} entry (not exported as a plugin). */
    public static final String MAPPING_OF = "x-tapline-mapping-of";
    /**
     * Key of the stored document listing the plugins imported without {@code namespace}
     * ({@code <type>/<name>}): Meltano Hub plugins, exported as written; every other plugin is
     * exported with a namespace.
     */
    public static final String HUB_PLUGINS = "hubPlugins";
    /**
     * Key of the stored document of an import made before overlays were stored per environment:
     * for each plugin the imported environment overlaid (its overlay merged into the plugin), the
     * base values of what the overlay set. Read by the export only ({@code OverlaySplit}).
     */
    public static final String OVERLAID_BASE = "overlaidBase";
    /**
     * Key of the stored document of an import of every environment: {@code {"<schedules|jobs>/<name>":
     * {"<environment>": "<pipeline>"}}}, the pipeline each schedule or job made in each environment.
     */
    public static final String ENVIRONMENT_PIPELINES = "environmentPipelines";

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    private Conventions() {
    }

    /**
     * A {@code state_id_suffix} with its {@code ${VAR}} and {@code $VAR} references expanded.
     *
     * @param value the expanded suffix, or null when a variable is not defined
     * @param missing the first variable not defined, or null
     */
    public record Expanded(String value, String missing) {
    }

    /**
     * Expands the references of a {@code state_id_suffix} as Meltano does, from the
     * environment's {@code env}.
     *
     * @param suffix the suffix as written
     * @param env the variable of each name, or null when not defined
     */
    public static Expanded expandSuffix(String suffix, Function<String, String> env) {
        Matcher m = VARIABLE.matcher(suffix);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String v = env.apply(name);
            if (v == null) {
                return new Expanded(null, name);
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(v));
        }
        m.appendTail(sb);
        return new Expanded(sb.toString(), null);
    }

    /** {@link #expandSuffix(String, Function)} from a map. */
    public static Expanded expandSuffix(String suffix, Map<String, String> env) {
        return expandSuffix(suffix, env::get);
    }
}
