package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.http.Paths;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.Map;

/**
 * {@code tapline pipelines list|show|create|edit|delete} over {@code /api/v1/pipelines}. A pipeline
 * is Meltano's job or schedule: {@code meltano job add} / {@code meltano schedule add} create one,
 * {@code meltano schedule set} edits it, {@code meltano schedule remove} deletes it.
 */
@Command(name = "pipelines", description = "List, show, create, edit and delete pipelines (meltano job / schedule).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline pipelines list",
                "  tapline pipelines create people --extractor tap-csv --loader target-jsonl --interval @daily",
                "  tapline pipelines edit people --interval '0 6 * * *' --timezone Europe/Berlin"})
public final class PipelinesCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListPipelines.class,
                "show", Show.class,
                "create", Create.class,
                "edit", Edit.class,
                "delete", Delete.class);
    }

    /** Fields the API sets and a PUT must not send. */
    private static final List<String> READ_ONLY = List.of("version", "createdAt", "updatedAt", "nextRunAt", "lastRun",
            "stateIdDerived", "warnings");

    @Command(name = "list", description = "Every pipeline with its extractor, loader, schedule, next and last run.",
            footerHeading = "%nExample:%n", footer = "  tapline pipelines list --format json")
    static final class ListPipelines implements Callable<Integer> {

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            ArrayNode items = all();
            Output.print(format, items, out -> {
                Table t = new Table("NAME", "EXTRACTOR", "LOADER", "STATE ID", "SCHEDULE", "NEXT RUN", "LAST RUN");
                for (JsonNode p : items) {
                    JsonNode last = p.path("lastRun");
                    t.row(p.path("name").asText(), p.path("extractor").asText(), p.path("loader").asText(),
                            p.path("stateId").asText(), ScheduleCommand.describe(p.path("schedule")),
                            Output.cell(p.get("nextRunAt")),
                            last.isObject() ? Term.status(last.path("status").asText()) : "-");
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    static ArrayNode all() {
        Api api = Session.current().api();
        return Pages.collect(Pages.of(c -> api.get("/api/v1/pipelines")), 0);
    }

    @Command(name = "show", description = "One pipeline, with its schedule and last run.",
            footerHeading = "%nExample:%n", footer = "  tapline pipelines show people --format yaml")
    static final class Show implements Callable<Integer> {

        @Parameters(paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class)
        String name;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            JsonNode p = get(name).json();
            Output.print(format, p, out -> fields(p, out));
            return ExitCodes.OK;
        }
    }

    static void fields(JsonNode p, java.io.PrintStream out) {
        Table t = new Table("FIELD", "VALUE");
        p.fields().forEachRemaining(e -> t.row(e.getKey(), e.getKey().equals("schedule")
                ? ScheduleCommand.describe(e.getValue()) : Output.cell(e.getValue())));
        t.print(out);
    }

    @Command(name = "create", description = "Create a pipeline joining an extractor and a loader (admin).",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline pipelines create people --extractor tap-csv --loader target-jsonl --environment dev"
                    + " --interval @daily --timezone Europe/Berlin",
                    "  tapline pipelines create people --file people.json"})
    static final class Create implements Callable<Integer> {

        @Parameters(paramLabel = "NAME")
        String name;

        @Option(names = "--file", paramLabel = "FILE",
                description = "The pipeline as JSON (the API's body);" + " the options below override its fields.")
        Path file;

        @Option(names = "--extractor", paramLabel = "EXTRACTOR", completionCandidates = Names.Extractors.class)
        String extractor;

        @Option(names = "--mapper", paramLabel = "MAPPER", description = "A mapper, in order (repeatable).")
        List<String> mappers;

        @Option(names = "--loader", paramLabel = "LOADER")
        String loader;

        @Option(names = "--environment", paramLabel = "ENV", description = "Meltano environment (default dev).")
        String environment;

        @Option(names = "--state-id-suffix", paramLabel = "SUFFIX")
        String suffix;

        @Option(names = "--interval", paramLabel = "INTERVAL",
                description = "@hourly, @daily, a cron, @manual (default), ...")
        String interval;

        @Option(names = "--timezone", paramLabel = "ZONE", description = "IANA zone of the cron (default UTC).")
        String timezone;

        @Option(names = "--timeout-seconds", paramLabel = "N")
        Integer timeout;

        @Override
        public Integer call() {
            ObjectNode body = file == null ? Json.object() : object(Inputs.read(file), "--file " + file);
            body.put("name", name);
            fields(body, extractor, mappers, loader, environment, suffix, timeout);
            schedule(body, interval, timezone, null);
            if (!body.hasNonNull("extractor") || !body.hasNonNull("loader")) {
                throw CliException.usage("A pipeline needs --extractor and --loader (or both in --file).");
            }
            JsonNode p = Session.current().api().post("/api/v1/pipelines").json(Json.compact(body)).ok().json();
            Term.err().println("Pipeline '" + name + "' created; its state ID is " + p.path("stateId").asText() + ".");
            return ExitCodes.OK;
        }
    }

    @Command(name = "edit", description = "Change a pipeline (admin): the fields given as options or in --file (a JSON"
            + " merge patch); without either, opens it in $EDITOR and saves it if changed (with If-Match, so"
            + " another change in between is not overwritten).",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline pipelines edit people --interval @hourly --disable",
                    "  tapline pipelines edit people --file patch.json", "  EDITOR=nano tapline pipelines edit people"})
    static final class Edit implements Callable<Integer> {

        @Parameters(paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class)
        String name;

        @Option(names = "--file", paramLabel = "FILE", description = "A JSON merge patch (RFC 7396).")
        Path file;

        @Option(names = "--extractor", paramLabel = "EXTRACTOR", completionCandidates = Names.Extractors.class)
        String extractor;

        @Option(names = "--mapper", paramLabel = "MAPPER", description = "Replaces the mappers (repeatable).")
        List<String> mappers;

        @Option(names = "--loader", paramLabel = "LOADER")
        String loader;

        @Option(names = "--environment", paramLabel = "ENV")
        String environment;

        @Option(names = "--state-id-suffix", paramLabel = "SUFFIX")
        String suffix;

        @Option(names = "--interval", paramLabel = "INTERVAL")
        String interval;

        @Option(names = "--timezone", paramLabel = "ZONE")
        String timezone;

        @Option(names = "--enable", negatable = true,
                description = "Enable (--no-enable or --disable: pause) the" + " schedule.")
        Boolean enable;

        @Option(names = "--disable", description = "Pause the schedule.")
        boolean disable;

        @Option(names = "--timeout-seconds", paramLabel = "N")
        Integer timeout;

        @Override
        public Integer call() {
            ObjectNode patch = file == null ? Json.object() : object(Inputs.read(file), "--file " + file);
            fields(patch, extractor, mappers, loader, environment, suffix, timeout);
            schedule(patch, interval, timezone, disable ? Boolean.FALSE : enable);
            String path = "/api/v1/pipelines/" + Paths.seg(name);
            if (!patch.isEmpty()) {
                Session.current().api().call("PATCH", path).body("application/merge-patch+json",
                        Json.compact(patch).getBytes(java.nio.charset.StandardCharsets.UTF_8)).ok();
                Term.err().println("Pipeline '" + name + "' changed.");
                return ExitCodes.OK;
            }
            Response current = get(name);
            ObjectNode editable = (ObjectNode) current.json();
            READ_ONLY.forEach(editable::remove);
            if (!current.json().path("stateIdDerived").asBoolean(true)) {
                editable.remove("stateIdDerived");
            } else {
                editable.remove("stateId");
            }
            String before = Json.pretty(editable) + "\n";
            String after = Editor.edit(before, ".json");
            if (after.isBlank() || after.equals(before)) {
                Term.err().println("No changes; pipeline '" + name + "' is as it was.");
                return ExitCodes.OK;
            }
            Session.current().api().call("PUT", path).header("If-Match", current.header("ETag"))
                    .json(Json.compact(object(after, "the edited pipeline"))).ok();
            Term.err().println("Pipeline '" + name + "' saved.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "delete", description = "Delete a pipeline (admin); its runs and its state stay.",
            footerHeading = "%nExample:%n", footer = "  tapline pipelines delete --force people")
    static final class Delete implements Callable<Integer> {

        @Parameters(paramLabel = "PIPELINE", completionCandidates = Names.Pipelines.class)
        String name;

        @Option(names = "--force", description = "Do not ask.")
        boolean force;

        @Override
        public Integer call() {
            Confirm.ask("This will delete pipeline '" + name + "'. Continue?", force);
            Session.current().api().call("DELETE", "/api/v1/pipelines/" + Paths.seg(name)).ok();
            Term.err().println("Pipeline '" + name + "' deleted.");
            return ExitCodes.OK;
        }
    }

    static Response get(String name) {
        return Session.current().api().get("/api/v1/pipelines/" + Paths.seg(name)).ok();
    }

    private static void fields(ObjectNode body, String extractor, List<String> mappers, String loader,
                               String environment, String suffix, Integer timeout) {
        putIf(body, "extractor", extractor);
        putIf(body, "loader", loader);
        putIf(body, "environment", environment);
        putIf(body, "stateIdSuffix", suffix);
        if (mappers != null) {
            body.set("mappers", Json.mapper().valueToTree(mappers));
        }
        if (timeout != null) {
            body.put("timeoutSeconds", timeout);
        }
    }

    private static void schedule(ObjectNode body, String interval, String timezone, Boolean enabled) {
        if (interval == null && timezone == null && enabled == null) {
            return;
        }
        ObjectNode s = body.has("schedule") && body.get("schedule").isObject() ? (ObjectNode) body.get("schedule")
                : body.putObject("schedule");
        putIf(s, "interval", interval);
        putIf(s, "timezone", timezone);
        if (enabled != null) {
            s.put("enabled", enabled);
        }
    }

    private static void putIf(ObjectNode o, String field, String value) {
        if (value != null) {
            o.put(field, value);
        }
    }

    static ObjectNode object(String text, String what) {
        JsonNode n = Json.input(text, what);
        if (!(n instanceof ObjectNode o)) {
            throw CliException.usage(what + " must be a JSON object.");
        }
        return o;
    }
}
