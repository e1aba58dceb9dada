package io.tapline.cli.cmd;

import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Paths;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import java.util.concurrent.Callable;
import java.util.Map;

/**
 * {@code tapline state bookmark get|set}: one stream's bookmark inside {@code singer_state}
 * ({@code /api/v1/states/{id}/bookmarks/{stream}[/{key}]}); a Tapline addition, Meltano has none.
 */
@Command(name = "bookmark", description = "Read or set one stream's bookmark (a key of singer_state.bookmarks).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline state bookmark get dev:tap-csv-to-target-jsonl people",
                "  tapline state bookmark set dev:tap-csv-to-target-jsonl people updated_at '\"2024-02-01T00:00:00Z\"'"})
public final class BookmarkCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "get", Get.class,
                "set", SetBookmark.class);
    }

    @Command(name = "get", description = "Print a stream's bookmark, or one key of it, as JSON.",
            footerHeading = "%nExample:%n",
            footer = "  tapline state bookmark get dev:tap-csv-to-target-jsonl people replication_key_value")
    static final class Get implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class)
        String stateId;

        @Parameters(index = "1", paramLabel = "STREAM")
        String stream;

        @Parameters(index = "2", arity = "0..1", paramLabel = "KEY")
        String key;

        @Override
        public Integer call() {
            byte[] body = Session.current().api().get(path(stateId, stream, key)).ok().body();
            Term.out().write(body, 0, body.length);
            return ExitCodes.OK;
        }
    }

    @Command(name = "set", description = "Set a stream's bookmark (a JSON object), or one key of it (any JSON value).",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline state bookmark set dev:tap-csv-to-target-jsonl people '{\"updated_at\": \"2024-02-01\"}'",
                    "  tapline state bookmark set dev:tap-csv-to-target-jsonl people updated_at '\"2024-02-01\"'"})
    static final class SetBookmark implements Callable<Integer> {

        @Option(names = StateCommand.OVERRIDE_RUN,
                description = "Edit even while a run of the state ID is queued" + " or running.")
        boolean overrideRun;

        @Parameters(index = "0", paramLabel = "STATE_ID", completionCandidates = Names.StateIds.class)
        String stateId;

        @Parameters(index = "1", paramLabel = "STREAM")
        String stream;

        @Parameters(index = "2", arity = "1..2", paramLabel = "[KEY] VALUE",
                description = "An optional key, then the JSON value.")
        String[] keyAndValue;

        @Override
        public Integer call() {
            String key = keyAndValue.length == 2 ? keyAndValue[0] : null;
            String value = keyAndValue[keyAndValue.length - 1];
            StateCommand.edit(Session.current().api().call("PUT", path(stateId, stream, key)).flag("force", overrideRun)
                    .json(value));
            Term.err().println("Bookmark of stream '" + stream + "' in '" + stateId + "' set.");
            return ExitCodes.OK;
        }
    }

    private static String path(String stateId, String stream, String key) {
        return "/api/v1/states/" + Paths.seg(stateId) + "/bookmarks/" + Paths.seg(stream)
                + (key == null ? "" : "/" + Paths.seg(key));
    }
}
