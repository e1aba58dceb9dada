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
import io.tapline.cli.out.Json;
import io.tapline.cli.out.MeltanoJson;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
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
                "set", SetState.class,
                "merge", Merge.class,
                "copy", Copy.class,
                "move", Move.class,
                "clear", Clear.class,
                "history", History.class,
                "rollback", Rollback.class,
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

    @Command(name = "set", description = "Replace the state of a state ID (meltano state set): the input becomes"
            + " the complete state. The input must have a top-level singer_state unless --no-validate.",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline state set --force dev:tap-csv-to-target-jsonl '{\"singer_state\": {\"bookmarks\":"
                    + " {\"people\": {\"updated_at\": \"2024-01-05T12:00:00Z\"}}}}'",
                    "  tapline state set --force dev:tap-csv-to-target-jsonl --input-file state.json"})
    static final class SetState implements Callable<Integer> {

        @Option(names = "--force", description = "Do not ask before overwriting.")
        boolean force;

        @Option(names = "--no-validate", description = "Skip the singer_state check.")
        boolean noValidate;

        @Option(names = OVERRIDE_RUN,
                description = "Edit even while a run of the state ID is queued or running" + " (its next checkpoint may overwrite this edit).")
        boolean overrideRun;

        @Option(names = "--input-file", paramLabel = "FILE", description = "Read the state from this file.")
        Path inputFile;

        @Parameters(index = "0", paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class, description = "The state ID.")
        String stateId;

        @Parameters(index = "1", arity = "0..1", paramLabel = "STATE", description = "The state as JSON.")
        String state;

        @Override
        public Integer call() {
            String text = Inputs.oneOf(state, inputFile, "--input-file,STATE");
            Confirm.ask("This will overwrite the state's current value. Continue?", force);
            Response r;
            try {
                r = edit(Session.current().api().call("PUT", "/api/v1/states/" + Paths.seg(stateId))
                        .query("validate", noValidate ? "false" : null).flag("force", overrideRun)
                        .json(text));
            } catch (ApiProblem p) {
                if (p.type().equals("validation") && p.getMessage().contains("singer_state")) {
                    // Meltano's own words for this check
                    throw p.withMessage("Invalid state format: " + p.body().path("detail").asText()
                            + " Use --no-validate to bypass this check.");
                }
                throw p;
            }
            Term.err().println("State of '" + stateId + "' set (version " + version(r) + ").");
            return ExitCodes.OK;
        }
    }

    @Command(name = "merge", description = "Merge a state into the stored one (meltano state merge): the input, or"
            + " the merged state of --from-state-id, is deep-merged over it.",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline state merge dev:tap-csv-to-target-jsonl '{\"singer_state\": {\"bookmarks\":"
                    + " {\"orders\": {\"id\": 42}}}}'",
                    "  tapline state merge dev:tap-csv-to-target-jsonl --from-state-id dev:tap-csv-to-target-jsonl:old"})
    static final class Merge implements Callable<Integer> {

        @Option(names = "--input-file", paramLabel = "FILE", description = "Read the state from this file.")
        Path inputFile;

        @Option(names = "--from-state-id", paramLabel = "SRC", completionCandidates = Names.StateIds.class, description = "Merge the state of this state ID.")
        String from;

        @Option(names = OVERRIDE_RUN,
                description = "Edit even while a run of the state ID is queued or" + " running.")
        boolean overrideRun;

        @Parameters(index = "0", paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class, description = "The state ID.")
        String stateId;

        @Parameters(index = "1", arity = "0..1", paramLabel = "STATE", description = "The state as JSON.")
        String state;

        @Override
        public Integer call() {
            int given = (state != null ? 1 : 0) + (inputFile != null ? 1 : 0) + (from != null ? 1 : 0);
            if (given != 1) {
                throw CliException.usage("Must provide exactly one of: --from-state-id,--input-file,STATE.");
            }
            Call c = Session.current().api().post("/api/v1/states/" + Paths.seg(stateId) + ":merge")
                    .flag("force", overrideRun);
            if (from != null) {
                c.query("fromStateId", from).json("");
            } else {
                c.json(Inputs.oneOf(state, inputFile, "--input-file,STATE"));
            }
            Response r = edit(c);
            Term.err().println("State of '" + stateId + "' merged (version " + version(r) + ").");
            return ExitCodes.OK;
        }
    }

    @Command(name = "copy", description = "Copy the merged state of SRC to DST, overwriting DST (meltano state copy).",
            footerHeading = "%nExample:%n",
            footer = "  tapline state copy --force dev:tap-csv-to-target-jsonl prod:tap-csv-to-target-jsonl")
    static final class Copy implements Callable<Integer> {

        @Option(names = "--force", description = "Do not ask before overwriting.")
        boolean force;

        @Option(names = OVERRIDE_RUN, description = "Edit even while a run of DST is queued or running.")
        boolean overrideRun;

        @Parameters(index = "0", paramLabel = "SRC_STATE_ID", completionCandidates = Names.StateIds.class)
        String src;

        @Parameters(index = "1", paramLabel = "DST_STATE_ID", completionCandidates = Names.StateIds.class)
        String dst;

        @Override
        public Integer call() {
            Confirm.ask("This will overwrite state for the destination. Continue?", force);
            edit(Session.current().api().post("/api/v1/states/" + Paths.seg(src) + ":copy").flag("force", overrideRun)
                    .json(Json.compact(Json.object().put("to", dst))));
            Term.err().println("State of '" + src + "' copied to '" + dst + "'.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "move", description = "Move the state of SRC to DST: copy, then clear SRC (meltano state move).",
            footerHeading = "%nExample:%n",
            footer = "  tapline state move --force dev:tap-csv-to-target-jsonl dev:tap-csv-to-target-jsonl:v2")
    static final class Move implements Callable<Integer> {

        @Option(names = "--force", description = "Do not ask before overwriting.")
        boolean force;

        @Option(names = OVERRIDE_RUN, description = "Edit even while a run of SRC or DST is queued or running.")
        boolean overrideRun;

        @Parameters(index = "0", paramLabel = "SRC_STATE_ID", completionCandidates = Names.StateIds.class)
        String src;

        @Parameters(index = "1", paramLabel = "DST_STATE_ID", completionCandidates = Names.StateIds.class)
        String dst;

        @Override
        public Integer call() {
            Confirm.ask("This will clear the source state and overwrite destination state. Continue?", force);
            edit(Session.current().api().post("/api/v1/states/" + Paths.seg(src) + ":move").flag("force", overrideRun)
                    .json(Json.compact(Json.object().put("to", dst))));
            Term.err().println("State of '" + src + "' moved to '" + dst + "'.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "clear", description = "Clear the state of a state ID, or of all of them with --all (meltano state"
            + " clear). The history is kept: tapline state rollback restores it.",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline state clear --force dev:tap-csv-to-target-jsonl", "  tapline state clear --force --all"})
    static final class Clear implements Callable<Integer> {

        @Option(names = "--force", description = "Do not ask before clearing.")
        boolean force;

        @Option(names = "--all", description = "Clear every state ID (admin).")
        boolean all;

        @Option(names = OVERRIDE_RUN, description = "Clear even while a run is queued or running.")
        boolean overrideRun;

        @Parameters(arity = "0..1", paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class)
        String stateId;

        @Override
        public Integer call() {
            if ((stateId == null) == !all) {
                throw CliException.usage("A state ID or the --all flag must be provided, but not both.");
            }
            Confirm.ask("This will clear state for the job(s). Continue?", force);
            Api api = Session.current().api();
            if (all) {
                Response r = edit(api.call("DELETE", "/api/v1/states").query("confirm", "all").flag("force", overrideRun));
                Term.err().println(r.json().path("cleared").asInt() + " state(s) were successfully cleared");
            } else {
                edit(api.call("DELETE", "/api/v1/states/" + Paths.seg(stateId)).flag("force", overrideRun));
                Term.err().println("State of '" + stateId + "' cleared.");
            }
            return ExitCodes.OK;
        }
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

    @Command(name = "rollback", description = "Make an earlier version the current state again (a new version;"
            + " nothing is deleted).", footerHeading = "%nExample:%n",
            footer = "  tapline state rollback --force dev:tap-csv-to-target-jsonl 3")
    static final class Rollback implements Callable<Integer> {

        @Option(names = "--force", description = "Do not ask before overwriting.")
        boolean force;

        @Option(names = OVERRIDE_RUN, description = "Roll back even while a run is queued or running.")
        boolean overrideRun;

        @Parameters(index = "0", paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class)
        String stateId;

        @Parameters(index = "1", paramLabel = "VERSION", description = "A version from tapline state history.")
        long version;

        @Override
        public Integer call() {
            Confirm.ask("This will overwrite the state's current value with version " + version + ". Continue?", force);
            Response r = edit(Session.current().api().post("/api/v1/states/" + Paths.seg(stateId) + ":rollback")
                    .flag("force", overrideRun).json(Json.compact(Json.object().put("version", version))));
            Term.err().println("State of '" + stateId + "' rolled back to version " + version + " (now version "
                    + version(r) + ").");
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

    private static String version(Response r) {
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
