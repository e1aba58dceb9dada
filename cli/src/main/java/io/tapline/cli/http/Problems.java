package io.tapline.cli.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.out.Json;

/**
 * Turns a non-2xx answer into an {@link ApiProblem}: the problem's {@code detail} (else its
 * {@code title}), the invalid fields it lists, and a hint in CLI terms; the exit code by status
 * (400 usage, 401/403 auth, 404 not found, 409/412/413/415/422/429 conflict or refused, 503
 * unreachable, anything else failed).
 */
public final class Problems {

    private static final String PREFIX = "urn:tapline:problem:";

    private Problems() {
    }

    /** The problem a response carries. */
    public static ApiProblem of(Response r) {
        JsonNode p = MissingNode.getInstance();
        String contentType = r.header("Content-Type");
        if (contentType != null && contentType.contains("json") && r.body().length > 0) {
            try {
                p = Json.parse(r.body());
            } catch (RuntimeException e) {
                p = MissingNode.getInstance();
            }
        }
        String type = p.path("type").asText("");
        String slug = type.startsWith(PREFIX) ? type.substring(PREFIX.length()) : "";
        String detail = text(p, "detail");
        if (detail == null) {
            detail = text(p, "title");
        }
        if (detail == null) {
            detail = "The service answered " + r.status() + " to " + r.method() + " " + r.uri().getRawPath() + ".";
        }
        if (r.status() == 401 && !r.tokenSent()) {
            detail = "The service at " + r.uri().getScheme() + "://" + r.uri().getRawAuthority() + " needs a token";
        }
        StringBuilder m = new StringBuilder(sentence(detail));
        JsonNode errors = p.path("errors");
        if (errors.isArray() && !errors.isEmpty()) {
            StringBuilder list = new StringBuilder();
            for (JsonNode e : errors) {
                String field = e.path("field").asText("");
                String msg = e.path("message").asText("");
                if (!detail.contains(field + " " + msg) && !detail.contains(field + ": " + msg)) {
                    list.append(list.isEmpty() ? "" : "; ").append(field.isEmpty() ? "" : field + ": ").append(msg);
                }
            }
            if (!list.isEmpty()) {
                m.append(" (").append(list).append(")");
            }
        }
        String hint = hint(r, p);
        if (hint != null) {
            m.append(' ').append(hint);
        }
        return new ApiProblem(exitCode(r.status()), m.toString(), r.status(), slug, p);
    }

    /** The exit code of an HTTP error status. */
    public static int exitCode(int status) {
        return switch (status) {
            case 400, 414, 431 -> ExitCodes.USAGE;
            case 401, 403 -> ExitCodes.AUTH;
            case 404, 410 -> ExitCodes.NOT_FOUND;
            case 408, 409, 412, 413, 415, 422, 423, 429 -> ExitCodes.CONFLICT;
            case 502, 503, 504 -> status == 502 ? ExitCodes.FAILED : ExitCodes.UNREACHABLE;
            default -> ExitCodes.FAILED;
        };
    }

    private static String hint(Response r, JsonNode p) {
        return switch (r.status()) {
            case 401 -> r.tokenSent()
                    ? "Log in again with 'tapline login', or set TAPLINE_TOKEN or --token."
                    : "Log in with 'tapline login', or set TAPLINE_TOKEN or --token.";
            case 403 -> "Use a token with that role ('tapline login', TAPLINE_TOKEN or --token).";
            case 500 -> p.hasNonNull("errorId") ? "Look up errorId " + p.get("errorId").asText()
                    + " in the service log." : null;
            default -> null;
        };
    }

    private static String text(JsonNode p, String field) {
        JsonNode n = p.path(field);
        return n.isTextual() && !n.asText().isBlank() ? n.asText().trim() : null;
    }

    private static String sentence(String s) {
        return s.endsWith(".") || s.endsWith("?") || s.endsWith("!") || s.endsWith(")") ? s : s + ".";
    }
}
