package io.tapline.cli.http;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request being built: method, path, query parameters, headers and body. {@link #send()}
 * returns the response whatever its status; {@link #ok()} turns a non-2xx answer into the
 * problem's {@link io.tapline.cli.CliException}.
 */
public final class Call {

    private final Api api;
    private final String method;
    private final String path;
    private final StringBuilder query = new StringBuilder();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private byte[] body;

    Call(Api api, String method, String path) {
        this.api = api;
        this.method = method;
        this.path = path;
        headers.put("Accept", "application/json");
    }

    /** Adds {@code name=value} to the query, unless value is null. */
    public Call query(String name, Object value) {
        if (value != null) {
            query.append(query.isEmpty() ? '?' : '&').append(Paths.query(name)).append('=')
                    .append(Paths.query(String.valueOf(value)));
        }
        return this;
    }

    /** Adds {@code name=true} when the flag is set. */
    public Call flag(String name, boolean set) {
        return set ? query(name, "true") : this;
    }

    /** Sets a header (replacing {@code Accept} when named). */
    public Call header(String name, String value) {
        if (value != null) {
            headers.put(name, value);
        }
        return this;
    }

    /** A JSON body. */
    public Call json(String text) {
        return body("application/json", text.getBytes(StandardCharsets.UTF_8));
    }

    /** A body of the given media type. */
    public Call body(String contentType, byte[] bytes) {
        headers.put("Content-Type", contentType);
        this.body = bytes;
        return this;
    }

    /** Sends it; the response of any status. */
    public Response send() {
        return api.send(builder());
    }

    /** Sends it and returns the 2xx response, or throws the problem it answered with. */
    public Response ok() {
        return send().orThrow();
    }

    /** Sends it with the body as a stream (for {@code follow=true} logs). */
    public HttpResponse<InputStream> stream() {
        return api.stream(builder());
    }

    /** The URL this call goes to. */
    public String url() {
        return api.resolve(path + query).toString();
    }

    private HttpRequest.Builder builder() {
        HttpRequest.Builder b = HttpRequest.newBuilder(api.resolve(path + query));
        headers.forEach(b::setHeader);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        return b;
    }
}
