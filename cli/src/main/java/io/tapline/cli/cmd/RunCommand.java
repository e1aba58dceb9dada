package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Paths;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code tapline run <pipeline>...}: Meltano's {@code meltano run}, one pipeline after the other
 * (stopping at the first that does not succeed): triggers a run ({@code POST
 * /api/v1/pipelines/{name}/runs}), follows its log, prints the summary and exits 0 when every run
 * SUCCEEDED, 1 when one FAILED or was CANCELLED. Ctrl-C asks whether to cancel the run
 * ({@link Interrupts}).
 */
@Command(name = "run", description = "Run pipelines, follow their logs and print each run's summary (meltano run).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline run demo", "  tapline run people --full-refresh --streams people,orders",
                "  tapline run demo --no-follow     # prints the run ID and returns"})
public final class RunCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class, description = "Pipelines to run, in order.")
    List<String> pipelines;

    @Option(names = "--full-refresh", description = "Ignore the stored bookmarks: the tap starts without state"
            + " (the new state is merged over the stored one).")
    boolean fullRefresh;

    @Option(names = "--streams", split = ",", paramLabel = "STREAM",
            description = "With --full-refresh: drop only these streams' bookmarks.")
    List<String> streams;

    @Option(names = "--refresh-catalog", description = "Discover the catalog again even when one is cached.")
    boolean refreshCatalog;

    @Option(names = "--state-strategy", paramLabel = "STRATEGY", description = "auto, merge or overwrite for this run.")
    String stateStrategy;

    @Option(names = "--force", description = "Cancel a queued run of the state ID (a pending retry) or fail one whose"
            + " heartbeat is lost, then start.")
    boolean force;

    @Option(names = "--no-follow", description = "Print the run ID and return at once.")
    boolean noFollow;

    @Override
    public Integer call() {
        if (streams != null && !fullRefresh) {
            throw CliException.usage("--streams names the streams to refresh fully; add --full-refresh.");
        }
        ObjectNode body = Json.object();
        if (fullRefresh && streams == null) {
            body.put("fullRefresh", true);
        }
        if (streams != null) {
            body.set("fullRefreshStreams", Json.mapper().valueToTree(streams));
        }
        if (refreshCatalog) {
            body.put("refreshCatalog", true);
        }
        if (stateStrategy != null) {
            body.put("stateStrategy", stateStrategy);
        }
        if (force) {
            body.put("force", true);
        }
        for (String pipeline : pipelines) {
            JsonNode run = Session.current().api().post("/api/v1/pipelines/" + Paths.seg(pipeline) + "/runs")
                    .json(Json.compact(body)).ok().json();
            String id = run.path("id").asText();
            if (noFollow) {
                Term.out().println(id);
                Term.err().println("Run " + id + " of " + pipeline + " is " + run.path("status").asText()
                        + "; follow it with: tapline runs logs --follow " + id);
                continue;
            }
            Term.err().println("Run " + id + " of " + pipeline + " " + run.path("status").asText().toLowerCase()
                    + "; Ctrl-C asks whether to cancel it.");
            JsonNode end = follow(id);
            RunView.summary(end, Term.out());
            if (!"SUCCEEDED".equals(end.path("status").asText())) {
                return ExitCodes.FAILED;
            }
        }
        return ExitCodes.OK;
    }

    /** Follows a run's log with Ctrl-C answered by {@link Interrupts}, and returns the ended run. */
    static JsonNode follow(String id) {
        LogPrinter printer = new LogPrinter();
        try (Interrupts ignored = Interrupts.askToCancel(id, printer.lock)) {
            printer.print(id, true);
            return awaitEnd(id);
        }
    }

    /**
     * The run once it has ended: its log has ended when it did, so this normally answers at once;
     * after a broken connection it looks again every second.
     */
    static JsonNode awaitEnd(String id) {
        long wait = 100;
        while (true) {
            JsonNode run = RunsCommand.get(id);
            if (RunView.ended(run)) {
                return run;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(ExitCodes.FAILED, "Interrupted; the run goes on: tapline runs show " + id);
            }
            wait = Math.min(1000, wait * 2);
        }
    }
}
