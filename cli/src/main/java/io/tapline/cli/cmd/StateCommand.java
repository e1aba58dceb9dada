package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.ApiProblem;
import io.tapline.cli.http.Call;
import io.tapline.cli.http.Pages;
import io.tapline.cli.http.Paths;
import io.tapline.cli.http.Problems;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.MeltanoJson;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.Map;

/**
 * {@code tapline state}: {@code meltano state} 4.2.2 with the same argument forms
 * (meltano-state.md §2), over {@code /api/v1/states}. Meltano's {@code --force} skips its question;
 * editing while a run of the state ID is active needs {@code --override-run} (the API's
 * {@code force=true}), which Meltano has no counterpart for.
 */
@Command(name = "state", description = "Read and edit Meltano state (meltano state).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline state list --pattern 'dev:*'", "  tapline state get dev:tap-csv-to-target-jsonl",
                "  tapline state set --force dev:tap-csv-to-target-jsonl '{\"singer_state\": {\"bookmarks\": {}}}'"})
public final class StateCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListIds.class,
                "get", Get.class,
                "set", StateEdits.SetState.class,
                "merge", StateEdits.Merge.class,
                "copy", StateEdits.Copy.class,
                "move", StateEdits.Move.class,
                "clear", StateEdits.Clear.class,
                "history", History.class,
                "rollback", StateEdits.Rollback.class,
                "bookmark", BookmarkCommand.class);
    }

    static final String OVERRIDE_RUN = "--override-run";

    @Command(name = "list", description = "List state IDs, one per line (green: has singer_state, yellow: empty,"
            + " red: neither), as meltano state list does.",
            footerHeading = "%nExample:%n", footer = "  tapline state list --pattern 'dev:tap-csv-*'")
    static final class ListIds implements Callable<Integer> {

        @Option(names = "--pattern", paramLabel = "GLOB",
                description = "Only IDs matching this glob (* any text, ? one character).")
        String pattern;

        @Option(names = "--format", defaultValue = "text", paramLabel = "FORMAT",
                description = "text (IDs, the default), table, json or yaml.")
        String format;

        @Override
        public Integer call() {
            ListFormat f = ListFormat.parse(format);
            Api api = Session.current().api();
            ArrayNode items = Pages.collect(Pages.of(c -> api.get("/api/v1/states").query("pattern", pattern)), 0);
            if (f == ListFormat.text) {
                if (items.isEmpty()) {
                    Term.err().println("No state IDs found.");
                }
                for (JsonNode s : items) {
                    String id = s.path("stateId").asText();
                    String status = s.path("status").asText();
                    Term.out().println(switch (status) {
                        case "ok" -> Term.green(id);
                        case "empty" -> Term.yellow(id);
                        default -> Term.red(id);
                    });
                }
                return ExitCodes.OK;
            }
            Output.print(f.format, items, out -> {
                Table t = new Table("STATE ID", "STATUS", "VERSION", "UPDATED");
                for (JsonNode s : items) {
                    t.row(s.path("stateId").asText(), Term.status(s.path("status").asText()), s.path("version").asText(),
                            Output.cell(s.get("updatedAt")));
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "get", description = "Print the merged state, byte for byte as meltano state get prints it"
            + " (compact JSON and a new line; {} for an ID without state).",
            footerHeading = "%nExample:%n", footer = "  tapline state get dev:tap-csv-to-target-jsonl --format pretty")
    static final class Get implements Callable<Integer> {

        @Parameters(paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class, description = "The state ID.")
        String stateId;

        @Option(names = "--format", defaultValue = "json", paramLabel = "FORMAT",
                description = "json (compact, the default) or pretty (indented as json.dumps(indent=2)).")
        String format;

        @Override
        public Integer call() throws IOException {
            boolean pretty = switch (format) {
                case "json" -> false;
                case "pretty" -> true;
                default -> throw CliException.usage("--format must be json or pretty, not '" + format + "'.");
            };
            Response r = Session.current().api().get("/api/v1/states/" + Paths.seg(stateId)).send();
            byte[] body;
            if (r.status() == 404 && isNotFound(r)) {
                body = "{}\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            } else {
                body = r.orThrow().body();
            }
            PrintStream out = Term.out();
            if (pretty) {
                out.print(MeltanoJson.indent(new String(body, java.nio.charset.StandardCharsets.UTF_8).trim()));
                out.print('\n');
            } else {
                out.write(body);
            }
            return ExitCodes.OK;
        }
    }

    private static boolean isNotFound(Response r) {
        return Problems.of(r).type().equals("not-found");
    }

    @Command(name = "history", description = "Every change of a state ID, newest first: version, source, action,"
            + " actor, run.", footerHeading = "%nExample:%n",
            footer = "  tapline state history dev:tap-csv-to-target-jsonl --limit 5")
    static final class History implements Callable<Integer> {

        @Parameters(paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class)
        String stateId;

        @Option(names = "--limit", defaultValue = "20", description = "At most this many (default 20; 0: all).")
        int limit;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            Api api = Session.current().api();
            ArrayNode items = Pages.collect(Pages.of(c -> api.get("/api/v1/states/" + Paths.seg(stateId) + "/history")),
                    limit);
            Output.print(format, items, out -> {
                Table t = new Table("VERSION", "SOURCE", "ACTION", "ACTOR", "RUN", "CREATED");
                for (JsonNode h : items) {
                    t.row(h.path("version").asText(), h.path("source").asText(), h.path("action").asText(),
                            Output.cell(h.get("actor")), Output.cell(h.get("runId")), Output.cell(h.get("createdAt")));
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    /** Sends a state edit; the API's {@code force=true} advice becomes {@value #OVERRIDE_RUN}. */
    static Response edit(Call c) {
        try {
            return c.ok();
        } catch (ApiProblem p) {
            if (p.getMessage().contains("force=true")) {
                throw p.withMessage(p.getMessage().replace("add force=true", "add " + OVERRIDE_RUN)
                        .replace("force=true", OVERRIDE_RUN));
            }
            throw p;
        }
    }

    static String version(Response r) {
        String etag = r.header("ETag");
        return etag == null ? "?" : etag.replace("W/", "").replace("\"", "");
    }

    /** {@code state list --format}: Meltano's lines of IDs, or a {@link Format}. */
    enum ListFormat {
        text(null), table(Format.table), json(Format.json), yaml(Format.yaml);

        final Format format;

        ListFormat(Format format) {
            this.format = format;
        }

        static ListFormat parse(String s) {
            for (ListFormat f : values()) {
                if (f.name().equalsIgnoreCase(s)) {
                    return f;
                }
            }
            throw CliException.usage("--format must be text, table, json or yaml, not '" + s + "'.");
        }
    }
}
