package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/**
 * {@code tapline version}: the CLI's version and Java, then the service it would talk to (URL,
 * where the URL and token came from, and the API version from {@code /q/openapi}).
 */
@Command(name = "version", description = "The CLI's version, and the service's URL and API version (meltano --version).",
        footerHeading = "%nExample:%n", footer = "  tapline version --client")
public final class VersionCommand implements Callable<Integer> {

    @Option(names = "--client", description = "Only the CLI's version; do not ask the service.")
    boolean client;

    @Override
    public Integer call() {
        Term.out().println("tapline " + Api.version() + " (Java " + System.getProperty("java.version") + ")");
        if (client) {
            return ExitCodes.OK;
        }
        Session s = Session.current();
        Api api = s.api();
        Term.out().println("service " + api.base() + " (URL from " + s.urlOrigin() + ", token from " + s.tokenOrigin()
                + ")");
        JsonNode info = api.get("/q/openapi").query("format", "json").ok().json().path("info");
        Term.out().println("API " + info.path("title").asText("?") + ", version " + info.path("version").asText("?"));
        return ExitCodes.OK;
    }
}
