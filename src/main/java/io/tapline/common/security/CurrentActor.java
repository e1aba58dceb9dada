package io.tapline.common.security;

import io.quarkus.security.identity.SecurityIdentity;
import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.Instance;

/**
 * Who is calling: the name recorded as the actor of state edits, runs and audit events. With a
 * token it is SmallRye JWT's principal name ({@code upn}, else {@code preferred_username}, else
 * {@code sub}); with {@code tapline.security.enabled=false} it is {@link #ANONYMOUS}. Names are
 * cut to {@link #MAX_LENGTH} characters and control characters are replaced by {@code ?}.
 */
@RequestScoped
public class CurrentActor {

    /** Actor of requests while authentication is switched off. */
    public static final String ANONYMOUS = "anonymous";
    /** Longest actor name stored (the history and run columns hold 200 characters). */
    public static final int MAX_LENGTH = 200;

    private final TaplineConfig config;
    private final Instance<SecurityIdentity> identity;
    private final Instance<io.quarkus.vertx.http.runtime.CurrentVertxRequest> request;

    public CurrentActor(TaplineConfig config, Instance<SecurityIdentity> identity,
                        Instance<io.quarkus.vertx.http.runtime.CurrentVertxRequest> request) {
        this.config = config;
        this.identity = identity;
        this.request = request;
    }

    /**
     * Who the caller is for the per-caller caps (large reads, connector probes): {@code user:<name>}
     * for a caller with a token, else {@code address:<client address>} (authentication off, or no
     * HTTP request).
     */
    public String key() {
        String name = name();
        if (!ANONYMOUS.equals(name)) {
            return "user:" + name;
        }
        io.vertx.ext.web.RoutingContext rc = request.isResolvable() ? request.get().getCurrent() : null;
        io.vertx.core.net.SocketAddress a = rc == null ? null : rc.request().remoteAddress();
        return "address:" + (a == null ? "?" : a.hostAddress());
    }

    /** The caller's name; {@link #ANONYMOUS} when authentication is off or the caller has no token. */
    public String name() {
        if (!config.security().enabled()) {
            return ANONYMOUS;
        }
        SecurityIdentity id = identity.get();
        if (id == null || id.isAnonymous() || id.getPrincipal() == null || id.getPrincipal().getName() == null) {
            return ANONYMOUS;
        }
        return clean(id.getPrincipal().getName());
    }

    /** A name safe to store: no control characters, at most {@link #MAX_LENGTH} characters. */
    static String clean(String name) {
        String n = name.replaceAll("\\p{Cntrl}", "?");
        return n.length() > MAX_LENGTH ? n.substring(0, MAX_LENGTH) : n;
    }
}
