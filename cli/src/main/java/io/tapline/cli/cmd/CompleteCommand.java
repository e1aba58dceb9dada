package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/**
 * The hidden {@code tapline __complete <kind>}: names for the shell's completion, one per line, from
 * the service ({@code pipelines}, {@code states}, {@code plugins}, {@code extractors}, {@code runs}:
 * the 20 newest). Prints nothing and exits 0 when the service cannot answer: completion must never
 * print an error into the command line being typed.
 */
@Command(name = "__complete", hidden = true, description = "Names for shell completion.")
public final class CompleteCommand implements Callable<Integer> {

    @Parameters(paramLabel = "KIND")
    String kind;

    @Override
    public Integer call() {
        try {
            Api api = Session.current().api();
            String path;
            String field;
            int limit = 0;
            switch (kind) {
                case "pipelines" -> {
                    path = "/api/v1/pipelines";
                    field = "name";
                }
                case "states" -> {
                    path = "/api/v1/states";
                    field = "stateId";
                }
                case "plugins" -> {
                    path = "/api/v1/plugins";
                    field = "name";
                }
                case "extractors" -> {
                    path = "/api/v1/plugins/extractors";
                    field = "name";
                }
                case "runs" -> {
                    path = "/api/v1/runs";
                    field = "id";
                    limit = 20;
                }
                default -> {
                    return ExitCodes.OK;
                }
            }
            for (JsonNode item : Pages.collect(Pages.of(c -> api.get(path)), limit)) {
                Term.out().println(item.path(field).asText());
            }
        } catch (RuntimeException e) {
            return ExitCodes.OK;
        }
        return ExitCodes.OK;
    }
}
