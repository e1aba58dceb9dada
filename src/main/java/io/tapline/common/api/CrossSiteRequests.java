package io.tapline.common.api;

import io.tapline.common.error.ProblemMappers;
import io.tapline.common.error.ProblemType;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses cross-site requests that change state, for deployments where a cookie is the credential
 * (an authenticating proxy that turns its session cookie into {@code Authorization: Bearer}): a page
 * on another site can make the browser send a form ({@code application/x-www-form-urlencoded},
 * {@code multipart/form-data}, {@code text/plain}) or a body-less request with that cookie, but no
 * other media type without a CORS preflight, which this service never answers with a grant.
 *
 * <p>Every {@code POST}, {@code PUT}, {@code PATCH} and {@code DELETE} under {@code /api/}:
 * <ul>
 *   <li>with an {@code Origin} header that is not this service's own origin (scheme-independent
 *   host and port, from the request's {@code Host}, or {@code X-Forwarded-Host} when
 *   {@code quarkus.http.proxy.enable-forwarded-host} is set), or {@code Origin: null}: 403
 *   {@code forbidden};</li>
 *   <li>with a {@code Content-Type} other than JSON ({@code application/json},
 *   {@code application/*+json} such as {@code application/merge-patch+json}) or YAML
 *   ({@code application/yaml}, {@code application/x-yaml}, {@code text/yaml}, {@code text/x-yaml}),
 *   whether it has a body or not ({@code :test}, {@code :discover}, {@code :install},
 *   {@code runs/{id}/cancel}): 415 {@code unsupported-media-type};</li>
 *   <li>otherwise, and without any {@code Content-Type} (a body-less call of the CLI or the console),
 *   it goes on.</li>
 * </ul>
 * Safe methods ({@code GET}, {@code HEAD}, {@code OPTIONS}) are not checked: they change nothing.
 */
public class CrossSiteRequests {

    private static final Set<String> CHANGING = Set.of("POST", "PUT", "PATCH", "DELETE");

    /** Media types a state change may carry (parameters such as {@code charset} aside). */
    static final Set<String> ACCEPTED = Set.of("application/json", "application/yaml", "application/x-yaml",
            "text/yaml", "text/x-yaml");

    /**
     * The check, before resource matching.
     *
     * @return the 403 or 415 problem response, or null to go on
     */
    @ServerRequestFilter(preMatching = true)
    public Response check(ContainerRequestContext request) {
        if (!CHANGING.contains(request.getMethod().toUpperCase(Locale.ROOT))
                || !request.getUriInfo().getRequestUri().getRawPath().startsWith("/api/")) {
            return null;
        }
        String origin = request.getHeaderString("Origin");
        if (origin != null && !sameOrigin(origin.trim(), request.getUriInfo().getRequestUri())) {
            return ProblemMappers.respond(ProblemType.FORBIDDEN, "A " + request.getMethod() + " from another site"
                    + " (Origin " + printable(origin) + ") is refused: state changes are accepted only from this"
                    + " service's own origin, or from clients that send no Origin (the CLI, scripts).",
                    request.getUriInfo(), null, null, null);
        }
        String type = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if (type != null && !accepted(type)) {
            return ProblemMappers.respond(ProblemType.UNSUPPORTED_MEDIA_TYPE, "Content-Type " + printable(type)
                    + " is not accepted for a " + request.getMethod() + " (a web form can send it from another site). "
                    + ProblemMappers.unsupportedMediaType(request.getUriInfo())
                    + " A call without a body needs no Content-Type.", request.getUriInfo(), null, null, null);
        }
        return null;
    }

    /** True for a JSON or YAML media type ({@link #ACCEPTED}, or {@code application/*+json}). */
    static boolean accepted(String contentType) {
        MediaType m;
        try {
            m = MediaType.valueOf(contentType);
        } catch (IllegalArgumentException e) {
            return false;
        }
        String t = m.getType().toLowerCase(Locale.ROOT) + "/" + m.getSubtype().toLowerCase(Locale.ROOT);
        return ACCEPTED.contains(t) || (t.startsWith("application/") && t.endsWith("+json"));
    }

    /**
     * True when {@code origin} ({@code scheme://host[:port]}) names the host and port {@code request}
     * was sent to. The scheme is not compared (a proxy ending TLS forwards {@code https} as
     * {@code http}); a port is compared only when one side names it, an absent one read as the
     * scheme's default.
     */
    static boolean sameOrigin(String origin, URI request) {
        URI o;
        try {
            o = new URI(origin);
        } catch (java.net.URISyntaxException e) {
            return false;
        }
        if (o.getHost() == null || request.getHost() == null || o.getRawPath() != null && !o.getRawPath().isEmpty()
                || !o.getHost().equalsIgnoreCase(request.getHost())) {
            return false;
        }
        return port(o) == port(request) || (o.getPort() < 0 && request.getPort() < 0);
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) {
            return u.getPort();
        }
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    /** A header value cut to 100 printable ASCII characters, for a message. */
    private static String printable(String v) {
        String s = v.length() > 100 ? v.substring(0, 100) + "..." : v;
        return "'" + s.replaceAll("[^\\x20-\\x7e]", "?") + "'";
    }
}
