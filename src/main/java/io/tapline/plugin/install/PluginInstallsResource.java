package io.tapline.plugin.install;

import io.tapline.common.api.Cursors;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.Roles;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.api.InstallResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.Map;

/**
 * {@code /api/v1/plugins/{type}/{name}/installs}: the install records of a plugin on every replica
 * (newest first, without logs) and one record with its log ({@code /installs/{id}}). Viewer role.
 */
@Path("/api/v1/plugins/{type}/{name}/installs")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PluginInstallsResource {

    private final PluginInstallService service;
    private final TaplineConfig config;

    public PluginInstallsResource(PluginInstallService service, TaplineConfig config) {
        this.service = service;
        this.config = config;
    }

    @GET
    @Operation(operationId = "listPluginInstalls", summary = "The plugin's newest installs on every replica, newest first (without logs)")
    public Map<String, List<InstallResponse>> list(@PathParam("type") String type, @PathParam("name") String name,
                                                   @QueryParam("limit") String limit) {
        int n = Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize());
        return Map.of("items", service.list(PluginType.fromPath(type), name, n));
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getPluginInstall", summary = "One install with its log (pip's output, credentials masked)")
    public InstallResponse get(@PathParam("type") String type, @PathParam("name") String name,
                               @PathParam("id") long id) {
        return service.get(PluginType.fromPath(type), name, id);
    }
}
