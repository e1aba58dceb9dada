package io.tapline.plugin;

import io.tapline.common.api.Params;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.plugin.api.PluginRequest;
import io.tapline.plugin.api.PluginResponse;
import io.tapline.plugin.install.PluginInstaller;
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
import java.util.List;
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
 * {@code /api/v1/plugins}: administration of Meltano plugins (extractors, loaders, mappers,
 * transformers, utilities). Errors are problem+json; writes honour {@code If-Match}. Reading needs
 * the viewer role, writing the admin role.
 */
@Path("/api/v1/plugins")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PluginResource {

    private final PluginService service;
    private final TaplineConfig config;
    private final PluginInstaller installs;
    private final PluginEnvironmentService overlays;

    public PluginResource(PluginService service, TaplineConfig config, PluginInstaller installs,
                          PluginEnvironmentService overlays) {
        this.service = service;
        this.overlays = overlays;
        this.config = config;
        this.installs = installs;
    }

    @GET
    @Operation(operationId = "listAllPlugins", summary = "List plugins of every type, newest first")
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid limit or cursor")
    public Page<PluginResponse> listAll(@QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return withInstall(service.list(null, cursor, limit(limit)));
    }

    @GET
    @Path("/{type}")
    @Operation(operationId = "listPlugins", summary = "List plugins of one type, newest first")
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid limit or cursor")
    @APIResponse(responseCode = "404", description = "No such plugin type")
    public Page<PluginResponse> list(@PathParam("type") String type, @QueryParam("limit") String limit,
                                     @QueryParam("cursor") String cursor) {
        return withInstall(service.list(PluginType.fromPath(type), cursor, limit(limit)));
    }

    @POST
    @Path("/{type}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "createPlugin", summary = "Create a plugin (409 if the name is taken)")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = PluginRequest.class),
            examples = @ExampleObject(name = "tap-csv", value = """
                    {"name": "tap-csv", "executable": "tap-csv", "capabilities": ["catalog", "discover", "state"],
                     "config": {"files": [{"entity": "people", "path": "/data/people.csv", "keys": ["id"]}],
                                "api_token": "s3cret"},
                     "sensitive": ["api_token"]}""")))
    @APIResponse(responseCode = "201", description = "Created; Location and ETag are set",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PluginResponse.class)))
    @APIResponse(responseCode = "400", description = "Invalid fields (each listed in `errors`)")
    @APIResponse(responseCode = "404", description = "No such plugin type")
    @APIResponse(responseCode = "409", description = "A plugin of this type and name exists")
    public Response create(@PathParam("type") String type, PluginRequest body) {
        PluginType t = PluginType.fromPath(type);
        PluginResponse p = view(service.create(t, Params.requireBody(body)));
        return Response.created(location(t, p.name())).tag(ETags.of(p.version())).entity(p).build();
    }

    @GET
    @Path("/{type}/{name}")
    @Operation(operationId = "getPlugin", summary = "Read a plugin; sensitive values read \"********\"")
    @APIResponse(responseCode = "200", description = "The plugin; ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PluginResponse.class)))
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    public Response get(@PathParam("type") String type, @PathParam("name") String name) {
        PluginResponse p = view(service.get(PluginType.fromPath(type), name));
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @PUT
    @Path("/{type}/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putPlugin", summary = "Create (201) or replace (200) a plugin; honours If-Match",
            description = "Replaces the whole plugin: a field left out gets its default (empty config, no"
                    + " capabilities, ...). Send \"********\" to keep a stored sensitive value; use PATCH to"
                    + " change some fields only.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = PluginRequest.class)))
    @APIResponse(responseCode = "200", description = "Replaced; ETag is the new version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PluginResponse.class)))
    @APIResponse(responseCode = "201", description = "Created; Location and ETag are set",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PluginResponse.class)))
    @APIResponse(responseCode = "400", description = "Invalid fields, or a body name other than the path's")
    @APIResponse(responseCode = "404", description = "No such plugin type")
    @APIResponse(responseCode = "412", description = "If-Match does not match (or the plugin does not exist)")
    public Response put(@PathParam("type") String type, @PathParam("name") String name,
                        @HeaderParam("If-Match") String ifMatch, PluginRequest body) {
        PluginType t = PluginType.fromPath(type);
        PluginService.Upsert r = service.put(t, name, Params.requireBody(body), ETags.expectedVersion(ifMatch));
        Response.ResponseBuilder b = r.created() ? Response.created(location(t, name)) : Response.ok();
        return b.tag(ETags.of(r.plugin().version())).entity(view(r.plugin())).build();
    }

    @PATCH
    @Path("/{type}/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Consumes({MergePatch.MEDIA_TYPE, MediaType.APPLICATION_JSON})
    @Operation(operationId = "patchPlugin", summary = "Change some fields of a plugin (JSON Merge Patch, RFC 7396)",
            description = "The patch is merged into the plugin as GET shows it (null removes a field; arrays and"
                    + " other values replace the field; objects such as config merge member by member) and the"
                    + " result is validated like a PUT. Sensitive values read \"********\" and keep their stored"
                    + " value. Honours If-Match.")
    @RequestBody(required = true, content = @Content(mediaType = MergePatch.MEDIA_TYPE,
            schema = @Schema(type = SchemaType.OBJECT),
            examples = @ExampleObject(name = "change one setting", value = "{\"config\": {\"start_date\": \"2024-01-01\"}}")))
    @APIResponse(responseCode = "200", description = "The changed plugin; ETag is its new version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PluginResponse.class)))
    @APIResponse(responseCode = "400", description = "The patch, or the plugin it produces, is invalid")
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    public Response patch(@PathParam("type") String type, @PathParam("name") String name,
                          @HeaderParam("If-Match") String ifMatch, JsonNode patch) throws JsonProcessingException {
        PluginResponse p = overlays.withEnvironments(List.of(service.patch(PluginType.fromPath(type), name,
                Params.requireBody(patch), ETags.expectedVersion(ifMatch)))).get(0);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @DELETE
    @Path("/{type}/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "deletePlugin", summary = "Delete a plugin (409 while a pipeline uses it); honours If-Match")
    @APIResponse(responseCode = "204", description = "Deleted")
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    @APIResponse(responseCode = "409", description = "Pipelines use it (listed in `pipelines`)")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    public Response delete(@PathParam("type") String type, @PathParam("name") String name,
                           @HeaderParam("If-Match") String ifMatch) {
        service.delete(PluginType.fromPath(type), name, ETags.expectedVersion(ifMatch));
        return Response.noContent().build();
    }

    /** Each plugin with its install state on this replica (field {@code install}) and its overlays. */
    private Page<PluginResponse> withInstall(Page<PluginResponse> page) {
        return new Page<>(overlays.withEnvironments(page.items()).stream().map(installs::withState).toList(),
                page.nextCursor());
    }

    /** One plugin with its install state on this replica and its overlays per environment. */
    private PluginResponse view(PluginResponse p) {
        return installs.withState(overlays.withEnvironments(List.of(p)).get(0));
    }

    private int limit(String limit) {
        return Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize());
    }

    private static java.net.URI location(PluginType type, String name) {
        return UriBuilder.fromPath("/api/v1/plugins/{type}/{name}").build(type.id(), name);
    }

}
