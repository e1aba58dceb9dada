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
import org.eclipse.microprofile.openapi.annotations.Operation;
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

    public PluginResource(PluginService service, TaplineConfig config, PluginInstaller installs) {
        this.service = service;
        this.config = config;
        this.installs = installs;
    }

    @GET
    @Operation(summary = "List plugins of every type, newest first")
    public Page<PluginResponse> listAll(@QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return withInstall(service.list(null, cursor, limit(limit)));
    }

    @GET
    @Path("/{type}")
    @Operation(summary = "List plugins of one type, newest first")
    public Page<PluginResponse> list(@PathParam("type") String type, @QueryParam("limit") String limit,
                                     @QueryParam("cursor") String cursor) {
        return withInstall(service.list(PluginType.fromPath(type), cursor, limit(limit)));
    }

    @POST
    @Path("/{type}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Create a plugin (409 if the name is taken)")
    public Response create(@PathParam("type") String type, PluginRequest body) {
        PluginType t = PluginType.fromPath(type);
        PluginResponse p = installs.withState(service.create(t, Params.requireBody(body)));
        return Response.created(location(t, p.name())).tag(ETags.of(p.version())).entity(p).build();
    }

    @GET
    @Path("/{type}/{name}")
    @Operation(summary = "Read a plugin; sensitive values read \"********\"")
    public Response get(@PathParam("type") String type, @PathParam("name") String name) {
        PluginResponse p = installs.withState(service.get(PluginType.fromPath(type), name));
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @PUT
    @Path("/{type}/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Create (201) or replace (200) a plugin; honours If-Match")
    public Response put(@PathParam("type") String type, @PathParam("name") String name,
                        @HeaderParam("If-Match") String ifMatch, PluginRequest body) {
        PluginType t = PluginType.fromPath(type);
        PluginService.Upsert r = service.put(t, name, Params.requireBody(body), ifMatch);
        Response.ResponseBuilder b = r.created() ? Response.created(location(t, name)) : Response.ok();
        return b.tag(ETags.of(r.plugin().version())).entity(installs.withState(r.plugin())).build();
    }

    @DELETE
    @Path("/{type}/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Delete a plugin (409 while a pipeline uses it); honours If-Match")
    public Response delete(@PathParam("type") String type, @PathParam("name") String name,
                           @HeaderParam("If-Match") String ifMatch) {
        service.delete(PluginType.fromPath(type), name, ifMatch);
        return Response.noContent().build();
    }

    /** Each plugin with its install state on this replica (field {@code install}). */
    private Page<PluginResponse> withInstall(Page<PluginResponse> page) {
        return new Page<>(page.items().stream().map(installs::withState).toList(), page.nextCursor());
    }

    private int limit(String limit) {
        return Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize());
    }

    private static java.net.URI location(PluginType type, String name) {
        return UriBuilder.fromPath("/api/v1/plugins/{type}/{name}").build(type.id(), name);
    }

}
