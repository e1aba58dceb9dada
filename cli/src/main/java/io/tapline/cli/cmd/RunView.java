package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;

import java.io.PrintStream;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/** How a run reads for people: the summary after {@code tapline run} and {@code tapline runs show}. */
final class RunView {

    /** Statuses after which a run changes no more. */
    static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED", "SKIPPED");

    private RunView() {
    }

    /** Whether the run has ended. */
    static boolean ended(JsonNode run) {
        return TERMINAL.contains(run.path("status").asText());
    }

    /**
     * The summary: status and duration, records per stream, exit codes, the failure, warnings, and
     * the state before and after (compact, as {@code state get} prints it).
     */
    static void summary(JsonNode run, PrintStream out) {
        String status = run.path("status").asText();
        out.println(Term.bold("Run " + run.path("id").asText()) + " of pipeline " + run.path("pipeline").asText()
                + ": " + Term.status(status) + duration(run) + " (attempt " + run.path("attempt").asInt(1)
                + ", trigger " + run.path("trigger").asText("?") + ")");
        JsonNode streams = run.path("streams");
        if (streams.isObject() && !streams.isEmpty()) {
            Table t = new Table("STREAM", "RECORDS", "SCHEMAS", "BYTES");
            for (Iterator<Map.Entry<String, JsonNode>> it = streams.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                t.row(e.getKey(), e.getValue().path("records").asText("0"), e.getValue().path("schemas").asText("0"),
                        e.getValue().path("bytes").asText("-"));
            }
            t.print(out);
        } else {
            out.println("Records: " + run.path("recordsTotal").asText("0"));
        }
        JsonNode codes = run.path("exitCodes");
        if (codes.isObject() && !codes.isEmpty()) {
            StringBuilder b = new StringBuilder();
            codes.fields().forEachRemaining(e -> b.append(b.isEmpty() ? "" : ", ").append(e.getKey()).append(' ')
                    .append(e.getValue().asText()));
            out.println("Exit codes: " + b);
        }
        if (run.hasNonNull("errorSummary")) {
            out.println(Term.red("Reason: ") + Term.printable(run.get("errorSummary").asText())
                    + (run.path("failure").hasNonNull("type") ? " [" + run.path("failure").path("type").asText() + "]" : ""));
        }
        for (JsonNode w : run.path("warnings")) {
            out.println(Term.yellow("Warning: ") + Term.printable(w.asText()));
        }
        out.println("State before: " + state(run.get("stateBefore")));
        out.println("State after:  " + state(run.get("stateAfter")));
    }

    /** A whole run in fields, for {@code runs show}. */
    static void details(JsonNode run, PrintStream out) {
        summary(run, out);
        Table t = new Table("FIELD", "VALUE");
        for (String f : new String[] {"stateId", "queuedAt", "startedAt", "endedAt", "ownerInstance", "createdBy",
                "cancelledBy", "stateStrategy", "stateCommitPolicy", "fullRefresh", "catalogSource", "retryOf"}) {
            if (run.hasNonNull(f)) {
                t.row(f, Output.cell(run.get(f)));
            }
        }
        t.print(out);
    }

    private static String state(JsonNode s) {
        return s == null || s.isNull() ? "{}" : Json.compact(s);
    }

    private static String duration(JsonNode run) {
        if (!run.hasNonNull("durationMs")) {
            return "";
        }
        long ms = run.get("durationMs").asLong();
        return ms < 10_000 ? String.format(" in %.1f s", ms / 1000.0) : " in " + (ms / 1000) + " s";
    }
}
