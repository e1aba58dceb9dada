package io.tapline.cli.http;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Locale;

/**
 * The Tapline REST API as the CLI uses it: one base URL ({@code http://localhost:8080}, or with a
 * path prefix behind a proxy), one optional bearer token, HTTP/1.1, no redirects followed (a
 * redirect would carry the token to another place). Transport failures become a
 * {@link CliException} with exit code {@link ExitCodes#UNREACHABLE}; HTTP errors are returned as
 * {@link Response}s for the caller to turn into problems ({@link Response#orThrow()}).
 */
public final class Api {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The User-Agent, {@code tapline-cli/<version>}. */
    public static final String USER_AGENT = "tapline-cli/" + version();

    private final URI base;
    private final String token;
    private final HttpClient[] client;

    /**
     * @param base the service's base URL, as {@link #parseBase} made it
     * @param token the bearer token, or null to send none
     */
    public Api(URI base, String token) {
        this(base, token, new HttpClient[1]);
    }

    private Api(URI base, String token, HttpClient[] client) {
        this.base = base;
        this.token = token;
        this.client = client;
    }

    /** The same service and connection pool with another token (null: none). */
    public Api withToken(String token) {
        return new Api(base, token, client);
    }

    /**
     * Parses a base URL given by {@code --url}, {@code TAPLINE_URL} or a profile.
     *
     * @throws CliException (usage) when it is not an http(s) URL with a host
     */
    public static URI parseBase(String url, String origin) {
        URI u;
        try {
            u = URI.create(url.trim());
        } catch (IllegalArgumentException e) {
            throw CliException.usage("The service URL '" + url + "' (" + origin + ") is not a URL; give one like"
                    + " http://localhost:8080.");
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null || u.getRawQuery() != null
                || u.getRawFragment() != null || u.getRawUserInfo() != null) {
            throw CliException.usage("The service URL '" + url + "' (" + origin + ") must be http:// or https://"
                    + " with a host and no query, like http://localhost:8080.");
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return URI.create(scheme + "://" + u.getRawAuthority() + path);
    }

    /** The base URL, without a trailing slash. */
    public URI base() {
        return base;
    }

    /** Whether a token is sent. */
    public boolean hasToken() {
        return token != null;
    }

    /** A request to {@code path} (starting with {@code /}, its segments already encoded with {@link Paths}). */
    public Call call(String method, String path) {
        return new Call(this, method, path);
    }

    /** {@code GET path}. */
    public Call get(String path) {
        return call("GET", path);
    }

    /** {@code POST path}. */
    public Call post(String path) {
        return call("POST", path);
    }

    Response send(HttpRequest.Builder request) {
        HttpRequest r = prepare(request);
        try {
            HttpResponse<byte[]> resp = client().send(r, HttpResponse.BodyHandlers.ofByteArray());
            return new Response(resp.statusCode(), resp.headers(), resp.body(), r.method(), r.uri(), token != null);
        } catch (IOException e) {
            throw transport(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.FAILED, "Interrupted while waiting for " + base + ".");
        }
    }

    /** Sends the request and returns the response with its body as a stream (for followed logs). */
    HttpResponse<InputStream> stream(HttpRequest.Builder request) {
        HttpRequest r = prepare(request);
        try {
            return client().send(r, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw transport(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.FAILED, "Interrupted while waiting for " + base + ".");
        }
    }

    private HttpRequest prepare(HttpRequest.Builder request) {
        request.setHeader("User-Agent", USER_AGENT);
        if (token != null) {
            request.setHeader("Authorization", "Bearer " + token);
        }
        return request.build();
    }

    URI resolve(String pathAndQuery) {
        return URI.create(base + pathAndQuery);
    }

    /** A transport failure, said as one sentence with what to do. */
    public CliException transport(IOException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof UnresolvedAddressException || root instanceof java.net.UnknownHostException) {
            return new CliException(ExitCodes.UNREACHABLE, "Cannot reach " + base + ": the host name '" + base.getHost()
                    + "' is not known. Check TAPLINE_URL or --url.");
        }
        if (e instanceof HttpConnectTimeoutException) {
            return new CliException(ExitCodes.UNREACHABLE, "Cannot reach " + base + " within "
                    + CONNECT_TIMEOUT.toSeconds() + " s: is the service running? Set TAPLINE_URL or --url.");
        }
        if (e instanceof ConnectException || root instanceof ConnectException) {
            return new CliException(ExitCodes.UNREACHABLE, "Cannot reach " + base + ": is the service running?"
                    + " Set TAPLINE_URL or --url.");
        }
        if (e instanceof HttpTimeoutException) {
            return new CliException(ExitCodes.UNREACHABLE, base + " did not answer in time; retry later.");
        }
        if (root instanceof javax.net.ssl.SSLException || e instanceof javax.net.ssl.SSLException) {
            return new CliException(ExitCodes.UNREACHABLE, "Cannot talk TLS with " + base + " (" + root.getMessage()
                    + "); check the URL's scheme and the server's certificate.");
        }
        String what = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return new CliException(ExitCodes.UNREACHABLE, "The connection to " + base + " failed (" + what
                + "); retry, or check that the service is running.");
    }

    /**
     * Stops the HTTP client's selector thread, if a client was made, and waits for it to end (at
     * most 200 ms): the JVM's exit would otherwise wait up to 300 ms for that thread whenever it is
     * blocked in {@code epoll_wait} ({@link SelectorStop}). Shared with every {@link #withToken}
     * copy; a later request makes a new client.
     */
    public void close() {
        HttpClient c = client[0];
        if (c != null) {
            client[0] = null;
            SelectorStop.stop(c);
        }
    }

    private HttpClient client() {
        if (client[0] == null) {
            // HTTP/1.1 (no h2c upgrade); the client's own tasks run on its selector thread instead of a
            // pool (one request at a time: no thread to start, no hand-over to wait for, measured in
            // bench/README.md §8); callbacks here never block.
            HttpClient.Builder b = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(CONNECT_TIMEOUT)
                    .executor(Runnable::run);
            if ("http".equals(base.getScheme())) {
                b.sslContext(NoTls.context()).sslParameters(NoTls.parameters());
            }
            client[0] = b.build();
        }
        return client[0];
    }

    /** The CLI's version (from the jar's manifest), or {@code dev} when run from classes. */
    public static String version() {
        String v = Api.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
