package io.tapline.state.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.api.ETags;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemType;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.state.Bookmarks;
import io.tapline.state.StateService;
import io.tapline.state.model.StateConflictException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestResponse;

import java.util.Optional;

import static io.tapline.state.api.StateAnswers.conflict;
import static io.tapline.state.api.StateAnswers.forced;
import static io.tapline.state.api.StateAnswers.state;

/**
 * {@code /api/v1/states/{stateId}/bookmarks/{stream}[/{key}]}: one stream's bookmark in the merged
 * {@code singer_state.bookmarks} of a state ID, read, replaced or removed without touching
 * anything else ({@link Bookmarks}). Reads need the viewer role, edits the operator role; an edit
 * is refused while a run of the state ID is active unless {@code force=true}.
 */
@Path("/api/v1")
@Tag(name = "States")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class BookmarkResource {

    private final StateService states;
    private final CurrentActor actor;
    private final io.tapline.common.api.LargeReads largeReads;

    public BookmarkResource(StateService states, CurrentActor actor,
                            io.tapline.common.api.LargeReads largeReads) {
        this.largeReads = largeReads;
        this.states = states;
        this.actor = actor;
    }

    @GET
    @Path("/states/{stateId}/bookmarks/{stream}")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The bookmark (a JSON object)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "404", description = "No such state ID or bookmark")
    @APIResponse(responseCode = "409", description = "The partial state cannot be merged over the completed one")
    @Operation(operationId = "getBookmark", summary = "A stream's bookmark in the merged singer_state.bookmarks")
    public RestResponse<String> bookmark(@PathParam("stateId") String stateId, @PathParam("stream") String stream) {
        return bookmarkValue(stateId, stream, null);
    }

    @GET
    @Path("/states/{stateId}/bookmarks/{stream}/{key}")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The value (any JSON value)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "JsonValue")))
    @APIResponse(responseCode = "404", description = "No such state ID, bookmark or key")
    @APIResponse(responseCode = "409", description = "The partial state cannot be merged over the completed one")
    @Operation(operationId = "getBookmarkKey", summary = "One key of a stream's bookmark")
    public RestResponse<String> bookmarkKey(@PathParam("stateId") String stateId, @PathParam("stream") String stream,
                                @PathParam("key") String key) {
        return bookmarkValue(stateId, stream, key);
    }

    @PUT
    @Path("/states/{stateId}/bookmarks/{stream}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(type = SchemaType.OBJECT, description = "The bookmark"),
            examples = @ExampleObject(name = "example", value = "{\"updated_at\": \"2024-01-05T12:00:00Z\"}")))
    @APIResponse(responseCode = "200", description = "The state, as `meltano state get` prints it; the ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Not a JSON object")
    @APIResponse(responseCode = "404", description = "The state ID has no state")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "putBookmark", summary = "Replace a stream's bookmark (a JSON object); nothing else changes")
    public RestResponse<String> putBookmark(@PathParam("stateId") String stateId, @PathParam("stream") String stream,
                                            @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                                            @HeaderParam("If-Match") String ifMatch, byte[] body) {
        JsonNode value = StateService.parse(StateService.text(body));
        if (!value.isObject()) {
            throw new ProblemException(ProblemType.MALFORMED_BODY, "A stream bookmark must be a JSON object, e.g."
                    + " {\"replication_key\": \"updated_at\", \"replication_key_value\": \"2024-01-01T00:00:00Z\"}.");
        }
        return printed(states.putBookmark(stateId, stream, null, value, actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
    }

    @PUT
    @Path("/states/{stateId}/bookmarks/{stream}/{key}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(ref = "JsonValue"), examples = @ExampleObject(name = "example", value = "2024-01-05T12:00:00Z")))
    @APIResponse(responseCode = "200", description = "The state, as `meltano state get` prints it; the ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Not JSON")
    @APIResponse(responseCode = "404", description = "The state ID has no state")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "putBookmarkKey", summary = "Set one key of a stream's bookmark (any JSON value); nothing else changes")
    public RestResponse<String> putBookmarkKey(@PathParam("stateId") String stateId, @PathParam("stream") String stream,
                                               @PathParam("key") String key,
                                               @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                                               @HeaderParam("If-Match") String ifMatch, byte[] body) {
        JsonNode value = StateService.parse(StateService.text(body));
        return printed(states.putBookmark(stateId, stream, key, value, actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
    }

    @DELETE
    @Path("/states/{stateId}/bookmarks/{stream}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The state, as `meltano state get` prints it; the ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "404", description = "No such state ID or bookmark")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "deleteBookmark", summary = "Remove a stream's bookmark (the next run extracts it in full)")
    public Response deleteBookmark(@PathParam("stateId") String stateId, @PathParam("stream") String stream,
                                   @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                                   @HeaderParam("If-Match") String ifMatch) {
        return state(states.deleteBookmark(stateId, stream, null, actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
    }

    @DELETE
    @Path("/states/{stateId}/bookmarks/{stream}/{key}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The state, as `meltano state get` prints it; the ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "404", description = "No such state ID, bookmark or key")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "deleteBookmarkKey", summary = "Remove one key of a stream's bookmark")
    public Response deleteBookmarkKey(@PathParam("stateId") String stateId, @PathParam("stream") String stream,
                                      @PathParam("key") String key,
                                      @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                                      @HeaderParam("If-Match") String ifMatch) {
        return state(states.deleteBookmark(stateId, stream, key, actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
    }

    private RestResponse<String> bookmarkValue(String stateId, String stream, String key) {
        Optional<Bookmarks.Printed> found;
        try {
            found = states.bookmark(stateId, stream, key, largeReads.threshold(), largeReads::admit);
        } catch (StateConflictException e) {
            throw conflict(e);
        }
        return printed(found.orElseThrow(() -> ProblemException.notFound("Bookmark", stateId + " " + stream
                + (key == null ? "" : "." + key))));
    }

    /**
     * A bookmark or a state printed by {@link Bookmarks}, with its version as the ETag. The entity
     * type is fixed ({@code String}), so the REST layer picks its writer once, at build time.
     */
    private static RestResponse<String> printed(Bookmarks.Printed p) {
        return RestResponse.ResponseBuilder.ok(p.json() + "\n", MediaType.APPLICATION_JSON_TYPE)
                .tag(ETags.of(p.version())).build();
    }
}
