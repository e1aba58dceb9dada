package io.tapline.cli;

import io.tapline.cli.config.Profiles;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Term;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where this invocation connects, resolved on first use (docs/cli.md, "Connecting").
 *
 * <p>The URL: {@code --url}, else {@code TAPLINE_URL}, else the profile's ({@code --profile}, else
 * {@code TAPLINE_PROFILE}, else the current one), else {@value #DEFAULT_URL}. The token:
 * {@code --token}, else {@code TAPLINE_TOKEN}, else the token of a profile <em>with that same URL</em>
 * (a token never goes to another server than the one it was stored for), else the dev token: what
 * {@code GET /ui/dev-token} answers (only a service in dev mode does), else, for a service on this
 * machine, {@code .tapline/dev-token} in the working directory. Without any, no token is sent.
 */
public final class Session {

    /** The URL used when nothing names one. */
    public static final String DEFAULT_URL = "http://localhost:8080";
    private static final Pattern JWT = Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");
    private static Session current = new Session();

    String urlOption;
    String tokenOption;
    String profileOption;
    private Profiles profiles;
    private Api api;
    private String urlOrigin;
    private String tokenOrigin;

    /** The session of this process. */
    public static Session current() {
        return current;
    }

    /** The API, connected as described in the class comment. */
    public Api api() {
        if (api == null) {
            api = connect();
        }
        return api;
    }

    /** Stops the API's HTTP client, if one was made, before the JVM exits ({@link Api#close()}). */
    public void close() {
        if (api != null) {
            api.close();
        }
    }

    /** The profiles file, read on first use. */
    public Profiles profiles() {
        if (profiles == null) {
            profiles = Profiles.load(Profiles.defaultFile());
            if (profiles.exposed()) {
                Term.err().println("tapline: warning: " + profiles.file() + " holds tokens and can be read by others;"
                        + " run chmod 600 " + profiles.file() + ".");
            }
        }
        return profiles;
    }

    /** {@code --profile}, else {@code TAPLINE_PROFILE}, else null. */
    public String profileOption() {
        return profileOption != null ? profileOption : blankToNull(System.getenv("TAPLINE_PROFILE"));
    }

    /** {@code --url} or {@code TAPLINE_URL} when given, else null. */
    public String explicitUrl() {
        return urlOption != null ? urlOption : blankToNull(System.getenv("TAPLINE_URL"));
    }

    /** {@code --token} or {@code TAPLINE_TOKEN} when given, else null. */
    public String explicitToken() {
        return tokenOption != null ? tokenOption : blankToNull(System.getenv("TAPLINE_TOKEN"));
    }

    /** Where the URL came from, after {@link #api()}: {@code --url}, {@code TAPLINE_URL}, {@code profile x}, {@code default}. */
    public String urlOrigin() {
        api();
        return urlOrigin;
    }

    /** Where the token came from, after {@link #api()}, or {@code none}. */
    public String tokenOrigin() {
        api();
        return tokenOrigin;
    }

    private Api connect() {
        String url;
        String named = profileOption();
        if (urlOption != null) {
            url = urlOption;
            urlOrigin = "--url";
        } else if (blankToNull(System.getenv("TAPLINE_URL")) != null) {
            url = System.getenv("TAPLINE_URL");
            urlOrigin = "TAPLINE_URL";
        } else {
            Profiles.Profile p = profile(named);
            if (p != null && p.url() != null) {
                url = p.url();
                urlOrigin = "profile " + (named != null ? named : profiles().current());
            } else {
                url = DEFAULT_URL;
                urlOrigin = "default";
            }
        }
        URI base = Api.parseBase(url, urlOrigin);
        String token = explicitToken();
        tokenOrigin = tokenOption != null ? "--token" : token != null ? "TAPLINE_TOKEN" : null;
        if (token == null) {
            token = profileToken(base, named);
        }
        Api a = new Api(base, token);
        if (token == null) {
            token = devToken(a);
            a = a.withToken(token);
        }
        if (tokenOrigin == null) {
            tokenOrigin = "none";
        }
        return a;
    }

    private Profiles.Profile profile(String named) {
        Profiles pf = profiles();
        if (named != null) {
            Profiles.Profile p = pf.get(named);
            if (p == null) {
                throw CliException.usage("There is no profile '" + named + "' in " + pf.file()
                        + "; 'tapline profiles list' shows them, 'tapline login --profile " + named + "' adds it.");
            }
            return p;
        }
        return pf.current() == null ? null : pf.get(pf.current());
    }

    private String profileToken(URI base, String named) {
        Profiles pf = profiles();
        String first = named != null ? named : pf.current();
        if (first != null && pf.get(first) != null && sameServer(pf.get(first).url(), base)
                && pf.get(first).token() != null) {
            tokenOrigin = "profile " + first;
            return pf.get(first).token();
        }
        if (named != null) {
            return null;
        }
        for (Map.Entry<String, Profiles.Profile> e : pf.all().entrySet()) {
            if (sameServer(e.getValue().url(), base) && e.getValue().token() != null) {
                tokenOrigin = "profile " + e.getKey();
                return e.getValue().token();
            }
        }
        return null;
    }

    private static boolean sameServer(String url, URI base) {
        if (url == null) {
            return base.toString().equals(DEFAULT_URL);
        }
        try {
            return Api.parseBase(url, "profile").equals(base);
        } catch (CliException e) {
            return false;
        }
    }

    private String devToken(Api anonymous) {
        Response r = anonymous.get("/ui/dev-token").header("Accept", "text/plain").send();
        if (r.status() == 200 && JWT.matcher(r.text().trim()).matches()) {
            tokenOrigin = "dev mode (/ui/dev-token)";
            return r.text().trim();
        }
        Path file = Path.of(".tapline", "dev-token");
        if (loopback(anonymous.base().getHost()) && Files.isRegularFile(file)) {
            try {
                String t = Files.readString(file, StandardCharsets.US_ASCII).trim();
                if (JWT.matcher(t).matches()) {
                    tokenOrigin = file.toString();
                    return t;
                }
            } catch (IOException e) {
                return null;
            }
        }
        return null;
    }

    private static boolean loopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]") || host.equals("::1");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
