package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.http.Paths;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import java.util.concurrent.Callable;
import java.util.Map;

/** {@code tapline runs list|show|logs|cancel}: run history ({@code /api/v1/runs}); Meltano has no such group. */
@Command(name = "runs", description = "List runs, show one, print or follow its log, cancel it.",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline runs list --pipeline demo --limit 5", "  tapline runs logs --follow 0190f3c2-...",
                "  tapline runs cancel 0190f3c2-..."})
public final class RunsCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListRuns.class,
                "show", Show.class,
                "logs", Logs.class,
                "cancel", Cancel.class);
    }

    @Command(name = "list", description = "Runs, newest first.", footerHeading = "%nExample:%n",
            footer = "  tapline runs list --pipeline demo --status FAILED --format json")
    static final class ListRuns implements Callable<Integer> {

        @Option(names = "--pipeline", paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class, description = "Only this pipeline's.")
        String pipeline;

        @Option(names = "--status", paramLabel = "STATUS",
                description = "QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED or SKIPPED.")
        String status;

        @Option(names = "--trigger", paramLabel = "TRIGGER", description = "SCHEDULE, MANUAL, API or RETRY.")
        String trigger;

        @Option(names = "--from", paramLabel = "TIME", description = "Queued at or after (ISO-8601).")
        String from;

        @Option(names = "--to", paramLabel = "TIME", description = "Queued before (ISO-8601).")
        String to;

        @Option(names = "--limit", defaultValue = "20", description = "At most this many (default 20; 0: all).")
        int limit;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            Api api = Session.current().api();
            ArrayNode runs = Pages.collect(Pages.of(c -> api.get("/api/v1/runs").query("pipeline", pipeline)
                    .query("status", status).query("trigger", trigger).query("from", from).query("to", to)), limit);
            Output.print(format, runs, out -> {
                Table t = new Table("ID", "PIPELINE", "STATUS", "TRIGGER", "QUEUED", "DURATION", "RECORDS");
                for (JsonNode r : runs) {
                    t.row(r.path("id").asText(), r.path("pipeline").asText(), Term.status(r.path("status").asText()),
                            r.path("trigger").asText(), Output.cell(r.get("queuedAt")),
                            r.hasNonNull("durationMs") ? r.get("durationMs").asLong() + " ms" : "-",
                            r.path("recordsTotal").asText("0"));
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", description = "One run: status, records per stream, exit codes, failure, state before"
            + " and after.", footerHeading = "%nExample:%n", footer = "  tapline runs show 0190f3c2-... --format json")
    static final class Show implements Callable<Integer> {

        @Parameters(paramLabel = "RUN_ID", completionCandidates = Names.Runs.class)
        String id;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            JsonNode run = get(id);
            Output.print(format, run, out -> RunView.details(run, out));
            return ExitCodes.OK;
        }
    }

    @Command(name = "logs", description = "Print a run's log; with --follow, as it is written until the run ends"
            + " (then exit 0 if it SUCCEEDED, 1 otherwise).", footerHeading = "%nExample:%n",
            footer = "  tapline runs logs --follow 0190f3c2-...")
    static final class Logs implements Callable<Integer> {

        @Parameters(paramLabel = "RUN_ID", completionCandidates = Names.Runs.class)
        String id;

        @Option(names = {"-f", "--follow"}, description = "Follow the log while the run lasts.")
        boolean follow;

        @Override
        public Integer call() {
            new LogPrinter().print(id, follow);
            if (!follow) {
                return ExitCodes.OK;
            }
            JsonNode run = RunCommand.awaitEnd(id);
            return "SUCCEEDED".equals(run.path("status").asText()) ? ExitCodes.OK : ExitCodes.FAILED;
        }
    }

    @Command(name = "cancel", description = "Cancel a queued or running run (SIGTERM to its processes, SIGKILL after"
            + " the grace period).", footerHeading = "%nExample:%n", footer = "  tapline runs cancel 0190f3c2-...")
    static final class Cancel implements Callable<Integer> {

        @Parameters(paramLabel = "RUN_ID", completionCandidates = Names.Runs.class)
        String id;

        @Override
        public Integer call() {
            JsonNode run = Session.current().api().post("/api/v1/runs/" + Paths.seg(id) + "/cancel").ok().json();
            Term.err().println("Cancel of run " + id + " requested; it is " + run.path("status").asText() + ".");
            return ExitCodes.OK;
        }
    }

    static JsonNode get(String id) {
        if (id.isBlank()) {
            throw CliException.usage("A run ID is required.");
        }
        return Session.current().api().get("/api/v1/runs/" + Paths.seg(id)).ok().json();
    }
}
