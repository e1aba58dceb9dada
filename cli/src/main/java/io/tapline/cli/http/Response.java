package io.tapline.cli.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.out.Json;

import java.net.URI;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;

/**
 * An API answer: status, headers and the whole body.
 *
 * @param status the HTTP status
 * @param headers the response headers
 * @param body the body bytes, as sent (never re-encoded: {@code state get} prints them as they are)
 * @param method the request's method
 * @param uri the request's URL
 * @param tokenSent whether the request carried a bearer token
 */
public record Response(int status, HttpHeaders headers, byte[] body, String method, URI uri, boolean tokenSent) {

    /** Whether the status is 2xx. */
    public boolean ok() {
        return status >= 200 && status < 300;
    }

    /** This response when 2xx; else the problem it carries, as a {@link io.tapline.cli.CliException}. */
    public Response orThrow() {
        if (ok()) {
            return this;
        }
        throw Problems.of(this);
    }

    /** The body as UTF-8 text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The body parsed as JSON (an empty body reads as a missing node). */
    public JsonNode json() {
        return Json.parse(body);
    }

    /** A header's first value, or null. */
    public String header(String name) {
        return headers.firstValue(name).orElse(null);
    }
}
