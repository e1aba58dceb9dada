package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Paths;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tapline schedule list|pause|resume|next}: pipelines' schedules (meltano schedule). */
@Command(name = "schedule", description = "List schedules, pause and resume them, show the next fire times"
        + " (meltano schedule).", footerHeading = "%nExamples:%n",
        footer = {"  tapline schedule list", "  tapline schedule pause people", "  tapline schedule next people --count 5"})
public final class ScheduleCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListSchedules.class,
                "pause", Pause.class,
                "resume", Resume.class,
                "next", Next.class);
    }

    @Command(name = "list", description = "Every pipeline's schedule: interval, time zone, enabled, next run"
            + " (meltano schedule list).", footerHeading = "%nExample:%n", footer = "  tapline schedule list --format json")
    static final class ListSchedules implements Callable<Integer> {

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            ArrayNode pipelines = PipelinesCommand.all();
            ArrayNode items = JsonNodeFactory.instance.arrayNode();
            for (JsonNode p : pipelines) {
                items.addObject().put("name", p.path("name").asText()).put("stateId", p.path("stateId").asText())
                        .setAll(Map.of("schedule", p.path("schedule"), "nextRunAt", p.path("nextRunAt")));
            }
            Output.print(format, items, out -> {
                Table t = new Table("PIPELINE", "INTERVAL", "TIMEZONE", "ENABLED", "NEXT RUN", "PAUSED BECAUSE");
                for (JsonNode p : items) {
                    JsonNode s = p.path("schedule");
                    t.row(p.path("name").asText(), s.path("interval").asText("@manual"), s.path("timezone").asText("UTC"),
                            s.path("enabled").asBoolean(true) ? "yes" : Term.yellow("paused"), Output.cell(p.get("nextRunAt")),
                            Output.cell(s.get("pausedReason")));
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "pause", description = "Stop a pipeline's automatic runs (operator).",
            footerHeading = "%nExample:%n", footer = "  tapline schedule pause people")
    static final class Pause implements Callable<Integer> {

        @Parameters(paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class)
        String name;

        @Override
        public Integer call() {
            Session.current().api().post("/api/v1/pipelines/" + Paths.seg(name) + "/pause").ok();
            Term.err().println("Schedule of '" + name + "' paused.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "resume", description = "Resume a pipeline's automatic runs from now on (operator).",
            footerHeading = "%nExample:%n", footer = "  tapline schedule resume people")
    static final class Resume implements Callable<Integer> {

        @Parameters(paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class)
        String name;

        @Override
        public Integer call() {
            Session.current().api().post("/api/v1/pipelines/" + Paths.seg(name) + "/resume").ok();
            Term.err().println("Schedule of '" + name + "' resumed.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "next", description = "The next fire times of a pipeline, in UTC and on its wall clock.",
            footerHeading = "%nExample:%n", footer = "  tapline schedule next people --count 3")
    static final class Next implements Callable<Integer> {

        @Parameters(paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class)
        String name;

        @Option(names = "--count", defaultValue = "5", description = "How many (default 5).")
        int count;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            JsonNode s = Session.current().api().get("/api/v1/pipelines/" + Paths.seg(name) + "/schedule")
                    .query("next", count).ok().json();
            Output.print(format, s, out -> {
                out.println(name + ": " + describe(s));
                Table t = new Table("UTC", "LOCAL");
                for (JsonNode f : s.path("next")) {
                    t.row(f.path("utc").asText(), f.path("local").asText());
                }
                if (t.isEmpty()) {
                    out.println("No fire times ahead.");
                } else {
                    t.print(out);
                }
            });
            return ExitCodes.OK;
        }
    }

    /** A schedule in words: {@code @daily Europe/Berlin}, {@code paused} appended. */
    static String describe(JsonNode s) {
        if (s == null || !s.isObject()) {
            return "@manual";
        }
        String interval = s.path("interval").asText("@manual");
        String tz = s.path("timezone").asText("UTC");
        return interval + (tz.equals("UTC") ? "" : " " + tz) + (s.path("enabled").asBoolean(true) ? "" : " (paused)");
    }
}
