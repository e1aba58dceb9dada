package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.config.Profiles;
import io.tapline.cli.http.Api;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * {@code tapline login}: checks a token against a service ({@code GET /ui/session}, which says who
 * the token is and its roles) and stores URL and token as a profile in the profiles file (mode
 * 0600), making it the current one. The token comes from {@code --token}, {@code TAPLINE_TOKEN},
 * or is read without echo from the terminal (or as one line from stdin when there is none).
 */
@Command(name = "login", description = "Store a service's URL and token as a profile (in ~/.config/tapline/config,"
        + " mode 0600) after checking the token.", footerHeading = "%nExamples:%n",
        footer = {"  tapline login --url https://tapline.example.com --profile prod",
                "  tapline token --role operator | tapline login --profile local"})
public final class LoginCommand implements Callable<Integer> {

    @Option(names = "--no-verify", description = "Store it without asking the service.")
    boolean noVerify;

    @Override
    public Integer call() {
        Session s = Session.current();
        Profiles profiles = s.profiles();
        String name = s.profileOption() != null ? s.profileOption()
                : profiles.current() != null ? profiles.current() : "default";
        if (!Profiles.NAME.matcher(name).matches()) {
            throw CliException.usage("Profile names are 1 to 64 letters, digits, '.', '_' or '-', not '" + name + "'.");
        }
        Profiles.Profile old = profiles.get(name);
        String url = s.explicitUrl() != null ? s.explicitUrl() : old != null && old.url() != null ? old.url()
                : Session.DEFAULT_URL;
        Api api = new Api(Api.parseBase(url, s.explicitUrl() != null ? "--url" : "profile " + name), null);
        String token = s.explicitToken() != null ? s.explicitToken() : read(api.base().toString());
        if (token.isEmpty()) {
            throw CliException.usage("No token was given; pass --token, set TAPLINE_TOKEN, or type it when asked.");
        }
        String who = "";
        if (!noVerify) {
            JsonNode session = api.withToken(token).get("/ui/session").ok().json();
            who = " as " + session.path("name").asText("?") + " (" + join(session.path("roles")) + ")";
        }
        profiles.put(name, new Profiles.Profile(api.base().toString(), token));
        profiles.use(name);
        profiles.save();
        Term.err().println("Logged in to " + api.base() + who + "; profile '" + name + "' saved in " + profiles.file()
                + " and made current.");
        return ExitCodes.OK;
    }

    private static String read(String url) {
        Console console = System.console();
        if (console != null && Term.stdinTty()) {
            char[] t = console.readPassword("Token for %s: ", url);
            return t == null ? "" : new String(t).trim();
        }
        try {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)).readLine();
            return line == null ? "" : line.trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static String join(JsonNode roles) {
        StringBuilder b = new StringBuilder();
        for (JsonNode r : roles) {
            b.append(b.isEmpty() ? "" : ", ").append(r.asText());
        }
        return b.isEmpty() ? "no role" : b.toString();
    }
}
