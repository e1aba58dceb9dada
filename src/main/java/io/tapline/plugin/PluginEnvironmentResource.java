package io.tapline.plugin;

import io.tapline.common.api.ETags;
import io.tapline.common.api.Params;
import io.tapline.common.security.Roles;
import io.tapline.plugin.api.EnvironmentOverlayRequest;
import io.tapline.plugin.api.EnvironmentOverlayResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.Map;

/**
 * {@code /api/v1/plugins/{type}/{name}/environments}: a plugin's overlay in each Meltano
 * environment (meltano.yml's {@code environments[].config.plugins.<type>[]}), which runs of the
 * pipelines of that environment apply over the plugin. Reading needs the viewer role, writing the
 * admin role, as for plugins. Errors are problem+json; writes honour {@code If-Match}.
 */
@Path("/api/v1/plugins/{type}/{name}/environments")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PluginEnvironmentResource {

    private final PluginEnvironmentService service;

    public PluginEnvironmentResource(PluginEnvironmentService service) {
        this.service = service;
    }

    @GET
    @Operation(operationId = "listPluginEnvironments", summary = "The plugin's overlays by environment name;"
            + " sensitive values read \"********\"")
    @APIResponse(responseCode = "200", description = "Overlays by environment name")
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    public Map<String, EnvironmentOverlayResponse> list(@PathParam("type") String type, @PathParam("name") String name) {
        return service.list(PluginType.fromPath(type), name);
    }

    @GET
    @Path("/{environment}")
    @Operation(operationId = "getPluginEnvironment", summary = "The plugin's overlay in one environment")
    @APIResponse(responseCode = "200", description = "The overlay; ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = EnvironmentOverlayResponse.class)))
    @APIResponse(responseCode = "404", description = "No such plugin type, plugin, or overlay in that environment")
    public Response get(@PathParam("type") String type, @PathParam("name") String name,
                        @PathParam("environment") String environment) {
        EnvironmentOverlayResponse o = service.get(PluginType.fromPath(type), name, environment);
        return Response.ok(o).tag(ETags.of(o.version())).build();
    }

    @PUT
    @Path("/{environment}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putPluginEnvironment", summary = "Create (201) or replace (200) the plugin's overlay"
            + " in one environment; honours If-Match",
            description = "Config and metadata are deep-merged over the plugin's, select replaces the plugin's"
                    + " when given, env is put over the plugin's, for runs of pipelines of that environment."
                    + " Send \"********\" to keep a sensitive value stored in this overlay.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = EnvironmentOverlayRequest.class),
            examples = @ExampleObject(name = "prod", value = "{\"config\": {\"count\": 4}, \"select\": [\"orders.*\"]}")))
    @APIResponse(responseCode = "200", description = "Replaced; ETag is the new version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = EnvironmentOverlayResponse.class)))
    @APIResponse(responseCode = "201", description = "Created; Location and ETag are set",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = EnvironmentOverlayResponse.class)))
    @APIResponse(responseCode = "400", description = "Invalid environment name or fields (each listed in `errors`)")
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    @APIResponse(responseCode = "412", description = "If-Match does not match (or there is no overlay yet)")
    public Response put(@PathParam("type") String type, @PathParam("name") String name,
                        @PathParam("environment") String environment, @HeaderParam("If-Match") String ifMatch,
                        EnvironmentOverlayRequest body) {
        PluginType t = PluginType.fromPath(type);
        PluginEnvironmentService.Upsert r = service.put(t, name, environment, Params.requireBody(body), ifMatch);
        Response.ResponseBuilder b = r.created() ? Response.created(UriBuilder
                .fromPath("/api/v1/plugins/{type}/{name}/environments/{environment}").build(t.id(), name, environment))
                : Response.ok();
        return b.tag(ETags.of(r.overlay().version())).entity(r.overlay()).build();
    }

    @DELETE
    @Path("/{environment}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "deletePluginEnvironment", summary = "Delete the plugin's overlay in one environment;"
            + " honours If-Match")
    @APIResponse(responseCode = "204", description = "Deleted: pipelines of that environment run the plugin's base")
    @APIResponse(responseCode = "404", description = "No such plugin type, plugin, or overlay")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    public Response delete(@PathParam("type") String type, @PathParam("name") String name,
                           @PathParam("environment") String environment, @HeaderParam("If-Match") String ifMatch) {
        service.delete(PluginType.fromPath(type), name, environment, ifMatch);
        return Response.noContent().build();
    }
}
