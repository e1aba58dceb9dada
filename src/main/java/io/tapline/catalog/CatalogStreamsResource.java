package io.tapline.catalog;

import io.tapline.catalog.api.StreamsResponse;
import io.tapline.common.api.LargeReads;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/v1/plugins/extractors/{name}/streams}: the extractor's streams (stored user
 * catalog, else the cached discovered one) with the plugin's current select and metadata applied
 * as a run applies them, rendered once per catalog version ({@link StreamsViews}). Starts no process.
 * Viewer role; a large read ({@link LargeReads}: 429 beyond the caps).
 */
@Path("/api/v1/plugins/extractors/{name}/streams")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class CatalogStreamsResource {

    private final CatalogService service;
    private final LargeReads largeReads;

    public CatalogStreamsResource(CatalogService service, LargeReads largeReads) {
        this.service = service;
        this.largeReads = largeReads;
    }

    @GET
    @Operation(operationId = "listExtractorStreams", summary = "The extractor's streams and properties, and"
            + " whether select/metadata select each (what the tap gets)")
    @APIResponse(responseCode = "200", description = "The streams", content = @Content(mediaType =
            MediaType.APPLICATION_JSON, schema = @Schema(implementation = StreamsResponse.class)))
    @APIResponse(responseCode = "404", description = "No such extractor")
    @APIResponse(responseCode = "409", description = "No stored catalog and never discovered (no-catalog)")
    public Response streams(@PathParam("name") String name) {
        largeReads.admit();
        return Response.ok(service.streams(name), MediaType.APPLICATION_JSON_TYPE).build();
    }
}
