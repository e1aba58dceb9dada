package io.tapline.common.api;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.Problem;
import io.tapline.common.error.ProblemType;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Request handling that happens before the REST layer:
 * <ul>
 *   <li>a colon sent percent-encoded ({@code /api/v1/states%3Aexport}, as some HTTP clients encode
 *   {@code :}) is decoded, so {@code <resource>:<action>} paths match however the client spelled
 *   them;</li>
 *   <li>a request whose {@code Content-Length} exceeds the state body limit
 *   ({@code tapline.state.max-body-bytes}) is answered 413 problem+json at once, without reading the
 *   body;</li>
 *   <li>a URL holding a NUL character ({@code %00}) is answered 400 problem+json (no name, filter,
 *   cursor or state ID may hold one; PostgreSQL refuses them), and one with a broken percent-escape
 *   ({@code %zz}) 400 problem+json too, and so is one with a {@code .} or {@code ..} path segment
 *   (raw or {@code %2E}), which the router would resolve to another resource;</li>
 *   <li>a request body must arrive within {@code tapline.api.body-timeout} (else 408 and the
 *   connection is closed), and one caller (bearer token, else client address) may send at most
 *   {@code tapline.api.max-uploads-per-caller} bodies at once (429 beyond), so slow uploads cannot
 *   tie up the service.</li>
 * </ul>
 */
@ApplicationScoped
public class HttpFilters {

    private final TaplineConfig config;
    private final io.vertx.core.Vertx vertx;
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> uploads =
            new java.util.concurrent.ConcurrentHashMap<>();

    public HttpFilters(TaplineConfig config, io.vertx.core.Vertx vertx) {
        this.config = config;
        this.vertx = vertx;
    }

    void install(@Observes Router router) {
        long max = config.state().maxBodyBytes();
        router.route().order(-1001).handler(rc -> {
            String raw = rc.request().uri();
            String bad = urlProblem(raw);
            if (bad != null) {
                problem(rc, 400, bad);
                return;
            }
            rc.next();
        });
        router.route().order(-1000).handler(rc -> {
            String length = rc.request().getHeader("Content-Length");
            if (length != null && rc.request().path().startsWith("/api/")) {
                long n;
                try {
                    n = Long.parseLong(length.trim());
                } catch (NumberFormatException e) {
                    n = -1;
                }
                if (n > max) {
                    JsonObject body = new JsonObject()
                            .put("type", ProblemType.PAYLOAD_TOO_LARGE.uri())
                            .put("title", ProblemType.PAYLOAD_TOO_LARGE.title())
                            .put("status", 413)
                            .put("detail", "The request body has " + n + " bytes; the limit is " + max
                                    + " bytes (tapline.state.max-body-bytes).")
                            .put("instance", rc.request().path());
                    rc.response().setStatusCode(413).putHeader("Content-Type", Problem.MEDIA_TYPE)
                            .putHeader("Connection", "close").end(body.encode());
                    return;
                }
            }
            if (rc.request().path().startsWith("/api/") && hasBody(rc.request()) && rc.get(UPLOAD_KEY) == null
                    && !admitUpload(rc)) {
                return;
            }
            String raw = rc.request().path();
            if (raw == null) {
                rc.next();
                return;
            }
            if (raw.contains("%3A") || raw.contains("%3a")) {
                String query = rc.request().query();
                rc.reroute(raw.replace("%3A", ":").replace("%3a", ":") + (query == null ? "" : "?" + query));
                return;
            }
            rc.next();
        });
    }

    /** Marks a request already counted as an upload (a rerouted request passes here twice). */
    private static final String UPLOAD_KEY = "tapline.upload";

    private static boolean hasBody(io.vertx.core.http.HttpServerRequest r) {
        String length = r.getHeader("Content-Length");
        return (length != null && !length.trim().equals("0")) || r.getHeader("Transfer-Encoding") != null;
    }

    /**
     * Counts a body upload of its caller and bounds the time it may take; false (answered 429) when
     * the caller already sends the most bodies allowed.
     */
    private boolean admitUpload(io.vertx.ext.web.RoutingContext rc) {
        String auth = rc.request().getHeader("Authorization");
        String caller = auth != null ? "token:" + Integer.toHexString(auth.hashCode()) + ":" + auth.length()
                : "address:" + (rc.request().remoteAddress() == null ? "?" : rc.request().remoteAddress().hostAddress());
        rc.put(UPLOAD_KEY, Boolean.TRUE);
        java.util.concurrent.atomic.AtomicInteger n = uploads.computeIfAbsent(caller,
                k -> new java.util.concurrent.atomic.AtomicInteger());
        int max = config.api().maxUploadsPerCaller();
        if (n.incrementAndGet() > max) {
            release(caller, n);
            problem(rc, 429, "You are already sending " + max + " request bodies at once"
                    + " (tapline.api.max-uploads-per-caller); wait for one to finish.");
            return false;
        }
        long timeout = config.api().bodyTimeout().toMillis();
        long timer = vertx.setTimer(timeout, id -> {
            if (!bodyArrived(rc.request()) && !rc.response().ended()) {
                if (!rc.response().headWritten()) {
                    problem(rc, 408, "The request body did not arrive within " + config.api().bodyTimeout().toSeconds()
                            + " s (tapline.api.body-timeout).");
                }
                rc.request().connection().close();
            }
        });
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        rc.addEndHandler(v -> {
            if (done.compareAndSet(false, true)) {
                vertx.cancelTimer(timer);
                release(caller, n);
                // Answered before its body was read (a 413 in the middle of a chunked body): the rest
                // of the body can never be read, so the connection cannot carry another request.
                io.vertx.core.http.HttpServerRequest request = rc.request();
                if (!bodyArrived(request) && request.version() != io.vertx.core.http.HttpVersion.HTTP_2) {
                    request.connection().close();
                }
            }
        });
        return true;
    }

    /**
     * True once the whole body was received: the request's end was delivered, or as many bytes as
     * its {@code Content-Length} were read. The REST layer reads a body of known length and then
     * leaves the request paused with its end still queued, so {@code isEnded()} alone stays false
     * while a slow handler works on a body that arrived long ago.
     */
    static boolean bodyArrived(io.vertx.core.http.HttpServerRequest r) {
        if (r.isEnded()) {
            return true;
        }
        String length = r.getHeader("Content-Length");
        if (length == null) {
            return false;
        }
        try {
            return r.bytesRead() >= Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private void release(String caller, java.util.concurrent.atomic.AtomicInteger n) {
        if (n.decrementAndGet() <= 0) {
            uploads.remove(caller, n);
        }
    }

    /**
     * Why a request URI (path and query, as sent) is refused, or null: a NUL character, sent
     * percent-encoded or raw, a {@code %} not followed by two hexadecimal digits, percent-escapes
     * that are not UTF-8, a {@code ;} in the path, or a dot segment.
     */
    static String urlProblem(String uri) {
        if (uri == null) {
            return null;
        }
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == 0) {
                return NUL_DETAIL;
            }
            if (c == '%') {
                if (i + 2 >= uri.length() || hex(uri.charAt(i + 1)) < 0 || hex(uri.charAt(i + 2)) < 0) {
                    return "The URL has a broken percent-escape at character " + (i + 1)
                            + ": '%' must be followed by two hexadecimal digits (write a literal '%' as %25).";
                }
                if (uri.charAt(i + 1) == '0' && uri.charAt(i + 2) == '0') {
                    return NUL_DETAIL;
                }
            }
        }
        String notUtf8 = notUtf8(uri);
        if (notUtf8 != null) {
            return notUtf8;
        }
        int query = uri.indexOf('?');
        if (uri.substring(0, query < 0 ? uri.length() : query).indexOf(';') >= 0) {
            return "The URL path holds a ';', which would be read as the start of matrix parameters and cut the"
                    + " name or state ID short; send it percent-encoded as %3B.";
        }
        return dotSegment(uri);
    }

    /**
     * Why a URI whose percent-escapes do not decode as UTF-8 ({@code %FF}) is refused, or null:
     * decoded with U+FFFD in their place, two different names would read as the same one.
     */
    static String notUtf8(String uri) {
        if (uri.indexOf('%') < 0) {
            return null;
        }
        byte[] bytes = new byte[uri.length()];
        int n = 0;
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '%' && i + 2 < uri.length()) {
                bytes[n++] = (byte) (hex(uri.charAt(i + 1)) * 16 + hex(uri.charAt(i + 2)));
                i += 2;
            } else if (c < 0x80) {
                bytes[n++] = (byte) c;
            } else {
                return null; // raw non-ASCII: the HTTP layer decoded it already
            }
        }
        try {
            java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes, 0, n));
            return null;
        } catch (java.nio.charset.CharacterCodingException e) {
            return "The URL has percent-escapes that are not UTF-8 (such as %FF); names, state IDs and filters"
                    + " are UTF-8 text.";
        }
    }

    /**
     * Why a path with a {@code .} or {@code ..} segment (sent as is or as {@code %2E}) is refused, or
     * null. The router would resolve such a segment, so {@code /states/s/bookmarks/%2E%2E} would
     * reach the whole state {@code s} instead of a stream named {@code ..}; no name Tapline keeps
     * may be {@code .} or {@code ..} as a path segment, and browsers resolve them before sending.
     */
    static String dotSegment(String uri) {
        int end = uri.indexOf('?');
        String path = end < 0 ? uri : uri.substring(0, end);
        for (String segment : path.split("/", -1)) {
            String s = segment.replace("%2E", ".").replace("%2e", ".");
            if (s.equals(".") || s.equals("..")) {
                return "The URL path has a '" + s + "' segment, which would be resolved to another resource; a"
                        + " stream, state ID or name of '.' or '..' cannot be addressed in a path.";
            }
        }
        return null;
    }

    private static final String NUL_DETAIL = "The URL contains a NUL character (%00); no name, filter, cursor or"
            + " state ID may hold one.";

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

    private static void problem(io.vertx.ext.web.RoutingContext rc, int status, String detail) {
        ProblemType type = switch (status) {
            case 400 -> ProblemType.MALFORMED_BODY;
            case 408 -> ProblemType.REQUEST_TIMEOUT;
            case 429 -> ProblemType.TOO_MANY_REQUESTS;
            case 404 -> ProblemType.NOT_FOUND;
            case 405 -> ProblemType.METHOD_NOT_ALLOWED;
            case 413 -> ProblemType.PAYLOAD_TOO_LARGE;
            case 415 -> ProblemType.UNSUPPORTED_MEDIA_TYPE;
            case 414, 431 -> ProblemType.REQUEST_TOO_LARGE;
            case 503 -> ProblemType.UNAVAILABLE;
            default -> ProblemType.INTERNAL;
        };
        if (status == 400 && detail == NUL_DETAIL) {
            type = ProblemType.VALIDATION;
        }
        JsonObject body = new JsonObject()
                .put("type", type.uri())
                .put("title", type.title())
                .put("status", status)
                .put("detail", detail)
                .put("instance", safePath(rc));
        rc.response().setStatusCode(status).putHeader("Content-Type", Problem.MEDIA_TYPE);
        if (status == 413 || status == 431 || status == 414 || status == 408 || status == 429) {
            rc.response().putHeader("Connection", "close");
        }
        rc.response().end(body.encode());
    }

    private static String safePath(io.vertx.ext.web.RoutingContext rc) {
        String p = rc.request().path();
        if (p == null || urlProblem(p) != null) {
            return null;
        }
        return p;
    }
}
