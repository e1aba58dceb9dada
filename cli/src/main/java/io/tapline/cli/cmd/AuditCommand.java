package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** {@code tapline audit}: the audit trail ({@code GET /api/v1/audit}, admin), newest first. */
@Command(name = "audit", description = "The audit trail: who changed what, when (admin).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline audit --actor alice --from 2026-01-01T00:00:00Z", "  tapline audit --action state. --limit 50"})
public final class AuditCommand implements Callable<Integer> {

    @Option(names = "--from", paramLabel = "TIME", description = "At or after (ISO-8601).")
    String from;

    @Option(names = "--to", paramLabel = "TIME", description = "Before (ISO-8601).")
    String to;

    @Option(names = "--actor", paramLabel = "NAME")
    String actor;

    @Option(names = "--action", paramLabel = "ACTION", description = "An action or its prefix (state., run.trigger).")
    String action;

    @Option(names = "--target-type", paramLabel = "TYPE", description = "plugin, pipeline, state or run.")
    String targetType;

    @Option(names = "--target", paramLabel = "TARGET")
    String target;

    @Option(names = "--limit", defaultValue = "50", description = "At most this many (default 50; 0: all).")
    int limit;

    @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
    Format format;

    @Override
    public Integer call() {
        Api api = Session.current().api();
        ArrayNode items = Pages.collect(Pages.of(c -> api.get("/api/v1/audit").query("from", from).query("to", to)
                .query("actor", actor).query("action", action).query("targetType", targetType)
                .query("target", target)), limit);
        Output.print(format, items, out -> {
            Table t = new Table("AT", "ACTOR", "ACTION", "TARGET", "DETAILS");
            for (JsonNode e : items) {
                t.row(e.path("at").asText(), e.path("actor").asText(), e.path("action").asText(),
                        e.path("target").asText(), Output.cell(e.get("details")));
            }
            t.print(out);
        });
        return ExitCodes.OK;
    }
}
