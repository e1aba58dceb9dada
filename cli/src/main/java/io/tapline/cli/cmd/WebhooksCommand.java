package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.http.Paths;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tapline webhooks list|show|create|delete|deliveries}: {@code /api/v1/webhooks} (admin; docs/events.md). */
@Command(name = "webhooks", description = "Subscribe URLs to run and state events; see their deliveries (admin).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline webhooks create https://hooks.example.com/tapline --events run.failed,state.not_advancing"
                + " --pipelines 'prod-*' --secret-file secret.txt",
                "  tapline webhooks deliveries 0190f3c2-..."})
public final class WebhooksCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListWebhooks.class,
                "show", Show.class,
                "create", Create.class,
                "delete", Delete.class,
                "deliveries", Deliveries.class);
    }

    @Command(name = "list", description = "Every subscription (secrets are never shown).",
            footerHeading = "%nExample:%n", footer = "  tapline webhooks list")
    static final class ListWebhooks implements Callable<Integer> {

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            Api api = Session.current().api();
            ArrayNode items = Pages.collect(Pages.of(c -> api.get("/api/v1/webhooks")), 0);
            Output.print(format, items, out -> {
                Table t = new Table("ID", "URL", "EVENTS", "PIPELINES", "FORMAT");
                for (JsonNode w : items) {
                    t.row(w.path("id").asText(), w.path("url").asText(), DiscoverCommand.join(w.path("events")),
                            DiscoverCommand.join(w.path("pipelines")), w.path("format").asText());
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", description = "One subscription.", footerHeading = "%nExample:%n",
            footer = "  tapline webhooks show 0190f3c2-...")
    static final class Show implements Callable<Integer> {

        @Parameters(paramLabel = "WEBHOOK_ID")
        String id;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            JsonNode w = Session.current().api().get("/api/v1/webhooks/" + Paths.seg(id)).ok().json();
            Output.print(format, w, out -> {
                Table t = new Table("FIELD", "VALUE");
                w.fields().forEachRemaining(e -> t.row(e.getKey(), Output.cell(e.getValue())));
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "create", description = "Subscribe a URL to events; deliveries are signed with the secret.",
            footerHeading = "%nExample:%n",
            footer = "  tapline webhooks create https://hooks.example.com/x --events run.failed --secret-file secret.txt")
    static final class Create implements Callable<Integer> {

        @Parameters(paramLabel = "URL")
        String url;

        @Option(names = "--events", split = ",", required = true, paramLabel = "EVENT", description = "run.succeeded,"
                + " run.failed, run.cancelled, pipeline.paused, state.not_advancing, state.large.")
        List<String> events;

        @Option(names = "--pipelines", split = ",", paramLabel = "GLOB", description = "Pipeline name globs (default *).")
        List<String> pipelines;

        @Option(names = "--secret-file", paramLabel = "FILE", required = true,
                description = "A file holding the signing secret (16 to 512 characters), kept off the command line.")
        java.nio.file.Path secretFile;

        @Option(names = "--format", paramLabel = "FORMAT", description = "json (default) or slack.")
        String format;

        @Option(names = "--description", paramLabel = "TEXT")
        String description;

        @Override
        public Integer call() {
            ObjectNode body = Json.object().put("url", url);
            body.set("events", Json.mapper().valueToTree(events));
            if (pipelines != null) {
                body.set("pipelines", Json.mapper().valueToTree(pipelines));
            }
            body.put("secret", Inputs.read(secretFile).strip());
            if (format != null) {
                body.put("format", format);
            }
            if (description != null) {
                body.put("description", description);
            }
            JsonNode w = Session.current().api().post("/api/v1/webhooks").json(Json.compact(body)).ok().json();
            Term.out().println(w.path("id").asText());
            Term.err().println("Webhook " + w.path("id").asText() + " created for " + url + ".");
            return ExitCodes.OK;
        }
    }

    @Command(name = "delete", description = "Delete a subscription with its pending deliveries and delivery log.",
            footerHeading = "%nExample:%n", footer = "  tapline webhooks delete --force 0190f3c2-...")
    static final class Delete implements Callable<Integer> {

        @Parameters(paramLabel = "WEBHOOK_ID")
        String id;

        @Option(names = "--force", description = "Do not ask.")
        boolean force;

        @Override
        public Integer call() {
            Confirm.ask("This will delete webhook " + id + " and its delivery log. Continue?", force);
            Session.current().api().call("DELETE", "/api/v1/webhooks/" + Paths.seg(id)).ok();
            Term.err().println("Webhook " + id + " deleted.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "deliveries", description = "A subscription's delivery log, newest first.",
            footerHeading = "%nExample:%n", footer = "  tapline webhooks deliveries 0190f3c2-... --limit 10")
    static final class Deliveries implements Callable<Integer> {

        @Parameters(paramLabel = "WEBHOOK_ID")
        String id;

        @Option(names = "--limit", defaultValue = "20", description = "At most this many (default 20; 0: all).")
        int limit;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            Api api = Session.current().api();
            ArrayNode items = Pages.collect(Pages.of(c -> api.get("/api/v1/webhooks/" + Paths.seg(id) + "/deliveries")),
                    limit);
            Output.print(format, items, out -> {
                Table t = new Table("ID", "EVENT", "STATUS", "ATTEMPTS", "LAST CODE", "LAST ERROR", "NEXT TRY");
                for (JsonNode d : items) {
                    t.row(d.path("id").asText(), d.path("eventId").asText(), Term.status(d.path("status").asText()),
                            d.path("attempts").asText(), Output.cell(d.get("lastStatusCode")),
                            Output.cell(d.get("lastError")), Output.cell(d.get("nextAttemptAt")));
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }
}
