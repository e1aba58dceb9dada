package io.tapline.pipeline;

import io.tapline.common.api.Params;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.api.MergePatch;
import jakarta.ws.rs.PATCH;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/v1/pipelines}: pipeline administration. Errors are problem+json; writes honour
 * {@code If-Match}. Reading needs the viewer role, changing pipelines the admin role. A pipeline's
 * runs ({@code /runs}) are served by the run feature, its schedule ({@code /schedule},
 * {@code /pause}, {@code /resume}) by the schedule feature, its state checks by events.
 */
@Path("/api/v1/pipelines")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Pipelines")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PipelineResource {

    private final PipelineService service;
    private final TaplineConfig config;

    public PipelineResource(PipelineService service, TaplineConfig config) {
        this.service = service;
        this.config = config;
    }

    @GET
    @Operation(operationId = "listPipelines", summary = "List pipelines, newest first")
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid limit or cursor")
    public Page<PipelineResponse> list(@QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return service.list(cursor, Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }

    @POST
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "createPipeline",
            summary = "Create a pipeline (409 if the name or state ID is taken, 422 for unknown plugins)")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = PipelineRequest.class),
            examples = @ExampleObject(name = "daily", value = """
                    {"name": "people", "extractor": "tap-csv", "loader": "target-jsonl", "environment": "dev",
                     "schedule": {"interval": "@daily", "timezone": "Europe/Berlin"}, "timeoutSeconds": 3600}""")))
    @APIResponse(responseCode = "201", description = "Created; Location and ETag are set",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "400", description = "Invalid fields (each listed in `errors`)")
    @APIResponse(responseCode = "409", description = "The name or the state ID is taken")
    @APIResponse(responseCode = "422", description = "An extractor, loader, mapper or transform plugin does not exist")
    public Response create(PipelineRequest body) {
        PipelineResponse p = service.create(Params.requireBody(body));
        return Response.created(location(p.name())).tag(ETags.of(p.version())).entity(p).build();
    }

    @GET
    @Path("/{name}")
    @Operation(operationId = "getPipeline", summary = "Read a pipeline")
    @APIResponse(responseCode = "200", description = "The pipeline; ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "404", description = "No such pipeline")
    public Response get(@PathParam("name") String name) {
        PipelineResponse p = service.get(name);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putPipeline", summary = "Create (201) or replace (200) a pipeline; honours If-Match",
            description = "Replaces the whole pipeline: a field left out gets its default (no timeout, manual"
                    + " schedule, one attempt, ...). Use PATCH to change some fields only.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = PipelineRequest.class)))
    @APIResponse(responseCode = "200", description = "Replaced; ETag is the new version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "201", description = "Created; Location and ETag are set",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "400", description = "Invalid fields, or a body name other than the path's")
    @APIResponse(responseCode = "409", description = "The state ID is taken by another pipeline")
    @APIResponse(responseCode = "412", description = "If-Match does not match (or the pipeline does not exist)")
    @APIResponse(responseCode = "422", description = "A referenced plugin does not exist")
    public Response put(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch,
                        PipelineRequest body) {
        PipelineService.Upsert r = service.put(name, Params.requireBody(body), ETags.expectedVersion(ifMatch));
        Response.ResponseBuilder b = r.created() ? Response.created(location(name)) : Response.ok();
        return b.tag(ETags.of(r.pipeline().version())).entity(r.pipeline()).build();
    }

    @PATCH
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Consumes({MergePatch.MEDIA_TYPE, MediaType.APPLICATION_JSON})
    @Operation(operationId = "patchPipeline", summary = "Change some fields of a pipeline (JSON Merge Patch, RFC 7396)",
            description = "The patch is merged into the pipeline as GET shows it (null removes a field and restores"
                    + " its default; objects such as schedule merge member by member; arrays replace) and the"
                    + " result is validated like a PUT. A derived state ID stays derived. Honours If-Match.")
    @RequestBody(required = true, content = @Content(mediaType = MergePatch.MEDIA_TYPE,
            schema = @Schema(type = SchemaType.OBJECT),
            examples = @ExampleObject(name = "pause and shorten the timeout",
                    value = "{\"schedule\": {\"enabled\": false}, \"timeoutSeconds\": 600}")))
    @APIResponse(responseCode = "200", description = "The changed pipeline; ETag is its new version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "400", description = "The patch, or the pipeline it produces, is invalid")
    @APIResponse(responseCode = "404", description = "No such pipeline")
    @APIResponse(responseCode = "409", description = "The state ID it produces is taken by another pipeline")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @APIResponse(responseCode = "422", description = "A referenced plugin does not exist")
    public Response patch(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch, JsonNode patch)
            throws JsonProcessingException {
        PipelineResponse p = service.patch(name, Params.requireBody(patch), ETags.expectedVersion(ifMatch));
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @DELETE
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "deletePipeline", summary = "Delete a pipeline (its state is kept); honours If-Match")
    @APIResponse(responseCode = "204", description = "Deleted")
    @APIResponse(responseCode = "404", description = "No such pipeline")
    @APIResponse(responseCode = "409", description = "A run of the pipeline is active (`activeRunId`)")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    public Response delete(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch) {
        service.delete(name, ETags.expectedVersion(ifMatch));
        return Response.noContent().build();
    }

    private static java.net.URI location(String name) {
        return UriBuilder.fromPath("/api/v1/pipelines/{name}").build(name);
    }

}
