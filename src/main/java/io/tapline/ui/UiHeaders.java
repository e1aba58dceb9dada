package io.tapline.ui;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * HTTP handling of the console outside the REST layer:
 * <ul>
 *   <li>{@code GET /} and {@code HEAD /} redirect (302) to {@code /ui/pipelines};</li>
 *   <li>every response under {@code /ui} and {@code /webjars} (pages, scripts, styles) carries a
 *   strict {@value #CSP} Content-Security-Policy: scripts and styles only from this origin, no inline
 *   script, no plugins, no framing, requests only to this origin; plus {@code nosniff},
 *   {@code no-referrer} and {@code DENY} framing for older browsers.</li>
 * </ul>
 */
@ApplicationScoped
public class UiHeaders {

    /** The Content-Security-Policy of every console response. */
    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

    void install(@Observes Router router) {
        router.route("/").method(HttpMethod.GET).method(HttpMethod.HEAD).order(-900)
                .handler(rc -> rc.response().setStatusCode(302).putHeader("Location", "/ui/pipelines").end());
        router.route().order(-900).handler(rc -> {
            String path = rc.request().path();
            if (path.equals("/ui") || path.startsWith("/ui/") || path.startsWith("/webjars/")) {
                rc.response().putHeader("Content-Security-Policy", CSP)
                        .putHeader("X-Content-Type-Options", "nosniff")
                        .putHeader("Referrer-Policy", "no-referrer")
                        .putHeader("X-Frame-Options", "DENY");
            }
            rc.next();
        });
    }
}
