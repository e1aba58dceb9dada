package io.tapline.project;

import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;

import io.tapline.project.api.ImportPlan;
import io.tapline.project.api.ImportRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code POST /api/v1/projects:import}, the {@code <collection>:<action>} spelling of
 * {@code POST /api/v1/projects/import} (an encoded {@code %3A} works too, see
 * {@link io.tapline.common.api.HttpFilters}). Same bodies, parameters and answers as
 * {@link ProjectResource}.
 */
@Path("/api/v1/projects:import")
@RolesAllowed(Roles.ADMIN)
@Tag(name = "Projects")
public class ProjectImportResource {

    private final ProjectResource projects;

    public ProjectImportResource(ProjectService service) {
        this.projects = new ProjectResource(service);
    }

    @POST
    @Consumes({"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", MediaType.TEXT_PLAIN})
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Import a meltano.yml sent as YAML text (dryRun=true: only the plan)")
    public ImportPlan importYaml(String yaml, @QueryParam("environment") String environment,
                                 @QueryParam("dryRun") String dryRun) {
        return projects.importYaml(yaml, environment, dryRun);
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Import a meltano.yml sent as JSON {yaml, environment, dryRun}")
    public ImportPlan importJson(ImportRequest body, @QueryParam("environment") String environment,
                                 @QueryParam("dryRun") String dryRun) {
        return projects.importJson(body, environment, dryRun);
    }
}
