package io.tapline.common.api;

import io.tapline.common.error.InvalidInputException;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.util.List;
import java.util.Set;

/**
 * Checks the API's boolean query parameters before any resource sees them: each of
 * {@code force}, {@code validate}, {@code follow} and {@code dryRun} may be given once, as
 * {@code true} or {@code false} ({@link Params#flag}). The REST layer hands an empty
 * ({@code ?force=}) or bare ({@code ?force}) parameter to the resource as absent, and a repeated one
 * as its first value, so {@code ?dryRun} would import for real and {@code ?force=false&force=true}
 * would silently mean one of them; those are 400 here instead.
 */
public class FlagParams {

    /** The boolean query parameters of the API. */
    static final Set<String> FLAGS = Set.of("force", "validate", "follow", "dryRun");

    /**
     * Refuses an empty, bare or repeated boolean parameter.
     *
     * @throws InvalidInputException 400 validation naming the parameter
     */
    @ServerRequestFilter(preMatching = true)
    public void check(ContainerRequestContext request) {
        if (request.getUriInfo().getRequestUri().getRawQuery() == null) {
            return;
        }
        var query = request.getUriInfo().getQueryParameters();
        for (String name : FLAGS) {
            List<String> values = query.get(name);
            if (values == null) {
                continue;
            }
            if (values.size() > 1) {
                throw InvalidInputException.field(name, "is given " + values.size() + " times; give it once, true or false");
            }
            Params.flag(name, values.get(0) == null ? "" : values.get(0), false);
        }
    }
}
