package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
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

import java.util.concurrent.Callable;

/**
 * {@code tapline discover <extractor>}: runs the tap's {@code --discover} on the service now
 * ({@code POST .../{name}:discover}, operator) and shows the streams it found, as
 * {@code meltano invoke <tap> --discover} would print its catalog.
 */
@Command(name = "discover", description = "Discover an extractor's streams again now (meltano invoke TAP --discover).",
        footerHeading = "%nExample:%n", footer = "  tapline discover tap-csv --format json")
public final class DiscoverCommand implements Callable<Integer> {

    @Parameters(paramLabel = "EXTRACTOR", completionCandidates = Names.Extractors.class)
    String extractor;

    @Option(names = "--timeout-seconds", paramLabel = "N", description = "Shorter than the service's limit.")
    Integer timeout;

    @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
    Format format;

    @Override
    public Integer call() {
        JsonNode r = Session.current().api().post("/api/v1/plugins/extractors/" + Paths.seg(extractor) + ":discover")
                .query("timeoutSeconds", timeout).json("").ok().json();
        Output.print(format, r, out -> {
            Table t = new Table("STREAM", "SELECTED", "KEYS", "REPLICATION", "PROPERTIES");
            for (JsonNode s : r.path("streams")) {
                t.row(s.path("tapStreamId").asText(), s.path("selected").asBoolean() ? Term.green("yes") : "no",
                        join(s.path("keyProperties")),
                        s.path("replicationMethod").asText(join(s.path("replicationMethods"))),
                        s.path("properties").size());
            }
            t.print(out);
        });
        return ExitCodes.OK;
    }

    static String join(JsonNode array) {
        StringBuilder b = new StringBuilder();
        for (JsonNode n : array) {
            b.append(b.isEmpty() ? "" : ",").append(n.asText());
        }
        return b.toString();
    }
}
