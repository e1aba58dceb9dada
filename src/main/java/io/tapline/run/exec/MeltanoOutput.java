package io.tapline.run.exec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.FailedComponent;

import java.io.IOException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading what {@code meltano run} (Meltano 4.2.2) prints: terminal escape sequences out, its real
 * error (not the {@code Block run completed} line it logs at error level after it), and the
 * connectors' {@code METRIC} lines it passes through. Pure functions.
 */
final class MeltanoOutput {

    /** CSI ({@code ESC [ ... final}), OSC ({@code ESC ] ... BEL|ST}) and two-byte escape sequences. */
    private static final Pattern ANSI = Pattern.compile(
            "\u001B\\[[0-?]*[ -/]*[@-~]|\u001B\\][^\u0007\u001B]*(?:\u0007|\u001B\\\\)|\u001B[@-Z\\\\-_]");
    private static final Pattern COMPONENT_FAILED = Pattern.compile("\\b(Extractor|Loader|Mappers?|Transformer|Utility)"
            + " failed\\b");
    private static final Pattern CANNOT_START = Pattern.compile("Cannot start plugin ([^:\\s]+)");
    private static final Pattern LEVEL_ERROR = Pattern.compile("\\[\\s*(error|critical)\\s*]", Pattern.CASE_INSENSITIVE);

    /**
     * Meltano's real error.
     *
     * @param line the error line, escape sequences removed
     * @param component the component it names, or null
     * @param configuration true when Meltano could not start a plugin (a configuration problem)
     */
    record Error(String line, FailedComponent component, boolean configuration) {
    }

    private MeltanoOutput() {
    }

    /** The text without terminal escape sequences (colours, cursor moves, hyperlinks). */
    static String strip(String s) {
        return s.indexOf('\u001B') < 0 ? s : ANSI.matcher(s).replaceAll("");
    }

    /**
     * The error a line states, or null: {@code Extractor failed}, {@code Loader failed},
     * {@code Mappers failed} (also inside Meltano's final "Run invocation could not be completed as
     * block failed: ..."), {@code Cannot start plugin X: ...} (X looked up in {@code plugins}),
     * else any other error-level line except the {@code Block run completed} summary.
     *
     * @param line one stderr line of meltano, escape sequences removed
     * @param plugins plugin name to its component
     * @return the line's error ({@code specific} for the named kinds), or null when it states none
     */
    static Classified classify(String line, Map<String, FailedComponent> plugins) {
        String text = line.trim();
        boolean summary = text.contains("Block run completed");
        Matcher start = CANNOT_START.matcher(text);
        if (start.find()) {
            return new Classified(new Error(text, plugins.get(start.group(1)), true), true);
        }
        if (!summary) {
            Matcher failed = COMPONENT_FAILED.matcher(text);
            if (failed.find()) {
                FailedComponent c = switch (failed.group(1)) {
                    case "Extractor" -> FailedComponent.EXTRACTOR;
                    case "Loader" -> FailedComponent.LOADER;
                    case "Mapper", "Mappers" -> FailedComponent.MAPPER;
                    default -> FailedComponent.TRANSFORM;
                };
                return new Classified(new Error(text, c, false), true);
            }
            if (LEVEL_ERROR.matcher(text).find()) {
                return new Classified(new Error(text, null, false), false);
            }
        }
        return null;
    }

    /**
     * A line's error, and whether it is one of the specific kinds (which win over generic error lines).
     *
     * @param error the error
     * @param specific true for component failures and plugin starts
     */
    record Classified(Error error, boolean specific) {
    }

    /**
     * A {@code record_count} counter of a {@code METRIC: {...}} line, as the Singer SDK logs it and
     * Meltano passes it through (with {@code producer=True} on the extractor's lines).
     *
     * @param stream the stream tag
     * @param records the counter's value
     */
    record RecordCount(String stream, long records) {
    }

    /** The extractor's record count on a line, or null (other metrics, the loader's, no metric). */
    static RecordCount recordCount(String line) {
        int i = line.indexOf("METRIC: {");
        if (i < 0 || line.contains("producer=False")) {
            return null;
        }
        JsonNode metric;
        try (JsonParser p = Jsons.MAPPER.getFactory().createParser(line.substring(i + 8))) {
            metric = p.readValueAsTree();
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (metric == null || !"record_count".equals(metric.path("metric").asText())) {
            return null;
        }
        String stream = metric.path("tags").path("stream").asText(null);
        return stream == null ? null : new RecordCount(stream, metric.path("value").asLong());
    }
}
