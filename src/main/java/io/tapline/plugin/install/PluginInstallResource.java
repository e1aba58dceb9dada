package io.tapline.plugin.install;

import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.api.InstallResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code POST /api/v1/plugins/{type}/{name}:install}: installs or reinstalls a plugin's pip_url
 * into its virtual environment on the replica that answers. 202 with the install record
 * ({@link InstallResponse}, status RUNNING; follow it at {@code Location}); 400 problem+json when
 * the plugin has no pip_url or its pip_url passes pip options; 404 for an unknown plugin. Admin role.
 */
@Path("/api/v1/plugins/{type}/{name}:install")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed(Roles.ADMIN)
public class PluginInstallResource {

    private final PluginInstaller installer;
    private final CurrentActor actor;

    public PluginInstallResource(PluginInstaller installer, CurrentActor actor) {
        this.installer = installer;
        this.actor = actor;
    }

    @POST
    @Operation(operationId = "installPlugin", summary = "Install or reinstall the plugin's pip_url on this replica (202 with the install record)")
    public Response install(@PathParam("type") String type, @PathParam("name") String name) {
        InstallResponse r = installer.start(PluginType.fromPath(type), name, actor.name());
        return Response.accepted(r).location(UriBuilder.fromPath("/api/v1/plugins/{type}/{name}/installs/{id}")
                .build(r.type(), r.name(), r.id())).build();
    }
}
