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
 *   body.</li>
 * </ul>
 */
@ApplicationScoped
public class HttpFilters {

    private final TaplineConfig config;

    public HttpFilters(TaplineConfig config) {
        this.config = config;
    }

    void install(@Observes Router router) {
        long max = config.state().maxBodyBytes();
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
            String raw = rc.request().path();
            if (raw.contains("%3A") || raw.contains("%3a")) {
                String query = rc.request().query();
                rc.reroute(raw.replace("%3A", ":").replace("%3a", ":") + (query == null ? "" : "?" + query));
                return;
            }
            rc.next();
        });
    }
}
