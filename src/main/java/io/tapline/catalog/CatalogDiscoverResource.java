package io.tapline.catalog;

import io.tapline.catalog.api.StreamsResponse;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.concurrent.CompletionStage;

/**
 * {@code POST /api/v1/plugins/extractors/{name}:discover}: runs {@code --discover} now and replaces
 * the cached catalog (runs then use it without discovering); answers with the streams. Waits for a
 * discovery of the same extractor already running anywhere in the cluster and uses its catalog.
 * Operator or admin role (it starts the tap, as a run does). Runs on a probe thread
 * ({@link ProbeSlots}: capped per caller and in total, 429 beyond), never on an HTTP thread.
 */
@Path("/api/v1/plugins/extractors/{name}:discover")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
public class CatalogDiscoverResource {

    private final CatalogService service;
    private final CurrentActor actor;
    private final ProbeSlots probes;

    public CatalogDiscoverResource(CatalogService service, CurrentActor actor, ProbeSlots probes) {
        this.service = service;
        this.actor = actor;
        this.probes = probes;
    }

    @POST
    @Operation(operationId = "discoverExtractorCatalog", summary = "Discover the extractor's catalog again and"
            + " store it in the catalog cache")
    @APIResponse(responseCode = "200", description = "Discovered; the streams with select/metadata applied",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = StreamsResponse.class)))
    @APIResponse(responseCode = "400", description = "The extractor does not declare 'discover', or a bad timeoutSeconds")
    @APIResponse(responseCode = "404", description = "No such extractor")
    @APIResponse(responseCode = "422", description = "Unresolvable config, not installed, or a missing executable")
    @APIResponse(responseCode = "502", description = "--discover failed, printed no catalog or passed its time"
            + " limit (connector-failed; detail ends with the tap's last stderr line)")
    @APIResponse(responseCode = "429", description = "The caller or the service has the most probes running"
            + " (tapline.catalog.probes-per-caller, max-probes)")
    public CompletionStage<Response> discover(@PathParam("name") String name,
                                              @QueryParam("timeoutSeconds") Integer timeoutSeconds) {
        String by = actor.name();
        return probes.run(actor.key(), () -> Response.ok(service.discover(name, timeoutSeconds, by),
                MediaType.APPLICATION_JSON_TYPE).build());
    }
}
