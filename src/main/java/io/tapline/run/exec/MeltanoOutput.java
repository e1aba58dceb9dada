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
    private static final Pattern COMPONENT_FAILED = Pattern.compile("\\b(Extractor and loader|Extractor|Loader|Mappers?"
            + "|Transformer|Utility) failed\\b");
    /** Meltano 4.2.2's error when a mapper ends before the blocks around it (block/extract_load.py). */
    private static final String MAPPER_FAILED = "Intermediate block (likely a mapper) failed";
    /** {@code <ISO time> [<level padded>] <rest>}: structlog's console renderer as Meltano configures it. */
    private static final Pattern DECORATION = Pattern.compile(
            "^(\\d{4}-\\d{2}-\\d{2}[T ][0-9:.,+-]+Z?)\\s+\\[\\s*([A-Za-z]+)\\s*]\\s*(.*)$");
    private static final Pattern FIRST_TOKEN = Pattern.compile("^(\\S+)\\s+(.*)$");
    private static final Pattern NAME_FIELD = Pattern.compile("(?:^|\\s)name=(\\S+)");
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
     * One log line of {@code meltano run} taken apart: Meltano 4.2.2 writes
     * {@code 2026-11-29T15:16:02.200814Z [error    ] meltano      Loader failed}, each plugin's
     * stderr under its own name ({@code [info     ] tap-sqlite   METRIC: {...}}); older releases put
     * the plugin in a {@code name=...} field after the message.
     *
     * @param level the log level (info, error, ...), or null when the line is not decorated
     * @param source the name in the name column or {@code name=} field when it is {@code meltano} or
     *     one of {@code names}, else null
     * @param message the text without time, level and name column
     */
    record LogLine(String level, String source, String message) {
    }

    /**
     * Takes a line apart ({@link LogLine}); an undecorated line is all message.
     *
     * @param names the run's plugin names (a name column is recognised only for these and {@code meltano})
     */
    static LogLine parse(String line, java.util.Collection<String> names) {
        String text = line.trim();
        Matcher d = DECORATION.matcher(text);
        if (!d.matches()) {
            return new LogLine(null, null, text);
        }
        String rest = d.group(3);
        Matcher first = FIRST_TOKEN.matcher(rest);
        if (first.matches() && (first.group(1).equals("meltano") || names.contains(first.group(1)))) {
            return new LogLine(d.group(2).toLowerCase(java.util.Locale.ROOT), first.group(1), first.group(2).trim());
        }
        if (rest.equals("meltano") || names.contains(rest)) {
            return new LogLine(d.group(2).toLowerCase(java.util.Locale.ROOT), rest, "");
        }
        Matcher field = NAME_FIELD.matcher(rest);
        String source = field.find() && names.contains(field.group(1)) ? field.group(1) : null;
        return new LogLine(d.group(2).toLowerCase(java.util.Locale.ROOT), source, rest.trim());
    }

    /**
     * A line as a reason reads it: without Meltano's time, level and {@code meltano} name column;
     * a plugin's line keeps its name ({@code tap-x: message}).
     */
    static String undecorated(String line, java.util.Collection<String> names) {
        LogLine l = parse(line, names);
        if (l.level() == null || l.source() == null || l.source().equals("meltano")) {
            return l.message();
        }
        return l.source() + ": " + l.message();
    }

    /**
     * The error a line states, or null: {@code Extractor failed}, {@code Loader failed},
     * {@code Mappers failed} (also inside Meltano's final "Run invocation could not be completed as
     * block failed: ..."), Meltano 4.2.2's "Intermediate block (likely a mapper) failed" (a mapper),
     * {@code Cannot start plugin X: ...} (X looked up in {@code plugins}), else any other
     * error-level line except the {@code Block run completed} summary (with the component of the
     * plugin whose name column it has, if any). The error's line is {@link #undecorated}.
     *
     * @param line one stderr line of meltano, escape sequences removed
     * @param plugins plugin name to its component
     * @return the line's error ({@code specific} for the named kinds), or null when it states none
     */
    static Classified classify(String line, Map<String, FailedComponent> plugins) {
        LogLine parsed = parse(line, plugins.keySet());
        String text = undecorated(line, plugins.keySet());
        boolean summary = text.contains("Block run completed");
        Matcher start = CANNOT_START.matcher(text);
        if (start.find()) {
            return new Classified(new Error(text, plugins.get(start.group(1)), true), true);
        }
        if (!summary) {
            Matcher failed = COMPONENT_FAILED.matcher(text);
            if (failed.find()) {
                FailedComponent c = switch (failed.group(1)) {
                    case "Extractor", "Extractor and loader" -> FailedComponent.EXTRACTOR;
                    case "Loader" -> FailedComponent.LOADER;
                    case "Mapper", "Mappers" -> FailedComponent.MAPPER;
                    default -> FailedComponent.TRANSFORM;
                };
                return new Classified(new Error(text, c, false), true);
            }
            if (text.contains(MAPPER_FAILED)) {
                return new Classified(new Error(text, FailedComponent.MAPPER, false), true);
            }
            boolean error = parsed.level() != null ? parsed.level().equals("error") || parsed.level().equals("critical")
                    : LEVEL_ERROR.matcher(text).find();
            if (error) {
                FailedComponent c = parsed.source() == null ? null : plugins.get(parsed.source());
                return new Classified(new Error(text, c, false), false);
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
     * Meltano passes it through under the plugin's name.
     *
     * @param stream the stream tag
     * @param records the counter's value
     */
    record RecordCount(String stream, long records) {
    }

    /**
     * The extractor's record count on a line, or null (other metrics, the loader's or a mapper's,
     * no metric). The loader counts the same records again, and the SDK in use marks neither
     * line as the producer's, so a line counts only when it is the extractor's: by Meltano's name
     * column ({@code [info     ] tap-x   METRIC: ...}) or {@code name=} field, else by an older
     * {@code producer=True} field.
     *
     * @param extractor the extractor's plugin name
     * @param names the run's plugin names
     */
    static RecordCount recordCount(String line, String extractor, java.util.Collection<String> names) {
        int i = line.indexOf("METRIC: {");
        if (i < 0) {
            return null;
        }
        LogLine l = parse(line, names);
        boolean extractors = l.source() != null ? l.source().equals(extractor) : line.contains("producer=True");
        if (!extractors) {
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
