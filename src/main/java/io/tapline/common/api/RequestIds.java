package io.tapline.common.api;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;

import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Gives every HTTP request an id: the caller's {@code X-Request-Id} when it is 1 to 100 characters
 * of letters, digits and {@code ._:-}, else a new UUID. The id is echoed in the response header
 * {@code X-Request-Id} and recorded with audit events.
 */
@ApplicationScoped
public class RequestIds {

    /** Request and response header. */
    public static final String HEADER = "X-Request-Id";
    private static final String KEY = "tapline.requestId";
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    private final Instance<CurrentVertxRequest> current;

    public RequestIds(Instance<CurrentVertxRequest> current) {
        this.current = current;
    }

    void install(@Observes Router router) {
        router.route().order(-900).handler(rc -> {
            String sent = rc.request().getHeader(HEADER);
            String id = sent != null && VALID.matcher(sent).matches() ? sent : UUID.randomUUID().toString();
            rc.put(KEY, id);
            rc.response().putHeader(HEADER, id);
            rc.next();
        });
    }

    /** The id of the HTTP request being handled on this thread, or null outside a request. */
    public String current() {
        try {
            RoutingContext rc = current.get().getCurrent();
            return rc == null ? null : rc.get(KEY);
        } catch (RuntimeException e) {
            return null; // no request context (scheduler, run threads)
        }
    }
}
