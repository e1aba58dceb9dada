package io.tapline.project;

import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;

import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemType;
import io.tapline.project.api.Assessment;
import io.tapline.project.api.ImportPlan;
import io.tapline.project.api.ImportRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/v1/projects}: Meltano projects. {@code POST /import} (also reachable as
 * {@code POST /api/v1/projects:import}, see {@link ProjectImportResource}) reads a meltano.yml into
 * plugins and pipelines; {@code GET /assessment} rates the imported project; {@code GET /meltano.yml}
 * writes the service's plugins and pipelines back as a meltano.yml.
 */
@Path("/api/v1/projects")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Tag(name = "Projects")
public class ProjectResource {

    private final ProjectService service;

    public ProjectResource(ProjectService service) {
        this.service = service;
    }

    @POST
    @Path("/import")
    @RolesAllowed(Roles.ADMIN)
    @Consumes({"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", MediaType.TEXT_PLAIN})
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Import a meltano.yml sent as YAML text: creates or updates plugins and pipelines"
            + " (dryRun=true: only the plan)")
    public ImportPlan importYaml(String yaml, @QueryParam("environment") String environment,
                                 @QueryParam("dryRun") String dryRun) {
        return service.importProject(yaml, environment, flag(dryRun, null));
    }

    @POST
    @Path("/import")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Import a meltano.yml sent as JSON {yaml, environment, dryRun}")
    public ImportPlan importJson(ImportRequest body, @QueryParam("environment") String environment,
                                 @QueryParam("dryRun") String dryRun) {
        if (body == null) {
            throw new ProblemException(ProblemType.MALFORMED_BODY, "A body {\"yaml\": \"...\"} is required.");
        }
        return service.importProject(body.yaml(), environment != null ? environment : body.environment(),
                flag(dryRun, body.dryRun()));
    }

    @GET
    @Path("/assessment")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Maturity of the imported project (basic, developing, mature) and findings")
    public Assessment assessment() {
        return service.assessment();
    }

    @GET
    @Path("/meltano.yml")
    @Produces({"application/yaml", "text/yaml", MediaType.TEXT_PLAIN})
    @Operation(summary = "The plugins and pipelines as a meltano.yml (secrets as ${VAR} references)")
    public String export() {
        return service.export();
    }

    /** Parses {@code dryRun}: the query parameter if given, else the body field, else false. */
    static boolean flag(String query, Boolean body) {
        if (query == null || query.isEmpty()) {
            return body != null && body;
        }
        if (query.equalsIgnoreCase("true")) {
            return true;
        }
        if (query.equalsIgnoreCase("false")) {
            return false;
        }
        throw ProblemException.invalid("dryRun", "must be true or false");
    }
}
