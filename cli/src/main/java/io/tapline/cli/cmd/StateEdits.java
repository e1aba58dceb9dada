package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.ApiProblem;
import io.tapline.cli.http.Call;
import io.tapline.cli.http.Paths;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import static io.tapline.cli.cmd.StateCommand.OVERRIDE_RUN;
import static io.tapline.cli.cmd.StateCommand.edit;
import static io.tapline.cli.cmd.StateCommand.version;

/**
 * The writing verbs of {@code tapline state} ({@link StateCommand}): {@code set}, {@code merge},
 * {@code copy}, {@code move}, {@code clear} and {@code rollback}, in {@code meltano state}'s forms,
 * with Meltano's questions ({@link Confirm}) and {@code --override-run} for the API's
 * {@code force=true}.
 */
final class StateEdits {

    private StateEdits() {
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
}
