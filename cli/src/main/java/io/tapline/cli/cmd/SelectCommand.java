package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Paths;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code tapline select <extractor> ...}: Meltano's {@code meltano select} over the plugin's
 * {@code select} patterns. {@code --list} shows what the tap will get
 * ({@code GET .../streams}, the run's own selection code); {@code ENTITY [ATTRIBUTE]} adds the
 * pattern {@code ENTITY.ATTRIBUTE} ({@code !} in front with {@code --exclude}), {@code --rm}
 * removes it; the change is sent with {@code If-Match}.
 */
@Command(name = "select", description = "List or change which streams and properties an extractor selects"
        + " (meltano select): ENTITY [ATTRIBUTE] adds ENTITY.ATTRIBUTE, or give one whole pattern.",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline select tap-csv --list --all", "  tapline select tap-csv people '*'",
                "  tapline select tap-csv --exclude people email", "  tapline select tap-csv '!people.email'",
                "  tapline select tap-csv --rm people email"})
public final class SelectCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "EXTRACTOR", completionCandidates = Names.Extractors.class)
    String extractor;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ENTITY", description = "Stream pattern (glob).")
    String entity;

    @Parameters(index = "2", arity = "0..1", paramLabel = "ATTRIBUTE", description = "Property pattern (default *).")
    String attribute;

    @Option(names = "--list", description = "Show the selected properties.")
    boolean list;

    @Option(names = "--all", description = "With --list: every property, selected or not.")
    boolean all;

    @Option(names = "--exclude", description = "Add an exclusion (!ENTITY.ATTRIBUTE).")
    boolean exclude;

    @Option(names = {"--rm", "--remove"}, description = "Remove the pattern instead of adding it.")
    boolean remove;

    @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
            description = "With --list: table (Meltano's layout), json or yaml.")
    Format format;

    @Override
    public Integer call() {
        String path = "/api/v1/plugins/extractors/" + Paths.seg(extractor);
        if (list) {
            JsonNode plugin = Session.current().api().get(path).ok().json();
            JsonNode streams = Session.current().api().get(path + "/streams").ok().json();
            Output.print(format, streams, out -> show(plugin, streams, out));
            return ExitCodes.OK;
        }
        if (entity == null) {
            throw CliException.usage("Give ENTITY [ATTRIBUTE] to change the selection, or --list to see it.");
        }
        String pattern = pattern(entity, attribute, exclude);
        Response current = Session.current().api().get(path).ok();
        ArrayNode select = JsonNodeFactory.instance.arrayNode();
        boolean present = false;
        for (JsonNode p : current.json().path("select")) {
            if (p.asText().equals(pattern)) {
                present = true;
                if (remove) {
                    continue;
                }
            }
            select.add(p);
        }
        if (remove ? !present : present) {
            Term.err().println("'" + pattern + "' is " + (remove ? "not" : "already") + " a select pattern of "
                    + extractor + "; nothing changed.");
            return ExitCodes.OK;
        }
        if (!remove) {
            select.add(pattern);
        }
        ObjectNode patch = Json.object();
        patch.set("select", select);
        ConfigCommand.patch(path, patch, current.header("ETag"));
        Term.err().println((remove ? "Removed '" : "Added '") + pattern + "' " + (remove ? "from" : "to")
                + " the select patterns of " + extractor + ".");
        return ExitCodes.OK;
    }

    /**
     * The select pattern: {@code ENTITY.ATTRIBUTE} as {@code meltano select} makes it ({@code *} for
     * a missing attribute, {@code !} in front with {@code --exclude}); a single argument that is
     * already a whole pattern ({@code users.id}, {@code !users.email}, as meltano.yml's {@code
     * select} lists them) is taken as it is.
     */
    static String pattern(String entity, String attribute, boolean exclude) {
        if (attribute == null && (entity.contains(".") || entity.startsWith("!"))) {
            boolean negated = entity.startsWith("!");
            String body = negated ? entity.substring(1) : entity;
            return (negated || exclude ? "!" : "") + body;
        }
        return (exclude ? "!" : "") + entity + "." + (attribute == null ? "*" : attribute);
    }

    /** Meltano's {@code select --list} layout: legend, enabled patterns, then the properties with their mark. */
    private void show(JsonNode plugin, JsonNode streams, PrintStream out) {
        out.println("Legend:");
        out.println("\t" + Term.green("selected"));
        out.println("\t" + Term.red("excluded"));
        out.println("\t" + Term.bold("automatic"));
        out.println("\t" + Term.dim("unsupported"));
        out.println();
        out.println("Enabled patterns:");
        for (JsonNode p : plugin.path("select")) {
            out.println("\t" + (p.asText().startsWith("!") ? Term.red(p.asText()) : p.asText()));
        }
        out.println();
        out.println("Selected attributes:");
        for (JsonNode s : streams.path("streams")) {
            for (JsonNode prop : s.path("properties")) {
                String inclusion = prop.path("inclusion").asText();
                boolean selected = s.path("selected").asBoolean() && prop.path("selected").asBoolean();
                String mark = inclusion.equals("automatic") && selected ? "automatic"
                        : inclusion.equals("unsupported") ? "unsupported" : selected ? "selected" : "excluded";
                if (!all && !selected) {
                    continue;
                }
                String text = String.format("[%-11s] %s.%s", mark, s.path("tapStreamId").asText(),
                        prop.path("name").asText());
                out.println("\t" + switch (mark) {
                    case "selected" -> Term.green(text);
                    case "excluded" -> Term.red(text);
                    case "unsupported" -> Term.dim(text);
                    default -> Term.bold(text);
                });
            }
        }
    }
}
