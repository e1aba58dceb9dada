package io.tapline.project;

import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;

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
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/v1/projects}: Meltano projects. {@code POST /import} (also reachable as
 * {@code POST /api/v1/projects:import}, see {@code ProjectImportResource}) reads a meltano.yml into
 * plugins and pipelines ({@code dryRun} is checked by {@code FlagParams}: true or false only;
 * {@code onConflict} by {@link OnConflict#fromString}); {@code GET /assessment} rates the imported project; {@code GET /meltano.yml}
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
    @Consumes({"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"})
    @Produces(MediaType.APPLICATION_JSON)
    @RequestBody(required = true, content = {
            @Content(mediaType = "application/yaml", schema = @Schema(type = SchemaType.STRING),
                    examples = @ExampleObject(name = "meltano.yml", value = ImportRequest.EXAMPLE_YAML)),
            @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ImportRequest.class))})
    @APIResponse(responseCode = "200", description = "The plan (dryRun=true) or what was done",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ImportPlan.class)))
    @APIResponse(responseCode = "400", description = "The YAML is malformed or names invalid values (`errors` name the YAML path)")
    @APIResponse(responseCode = "409", description = "A pipeline's state ID is taken by a pipeline the document does not name;"
            + " onConflict=fail and an existing item would change; or onConflict not given and a stored secret or capability"
            + " would be dropped (`drops`, `plan`; nothing written)")
    @APIResponse(responseCode = "413", description = "The document is larger than tapline.projects.max-document-chars")
    @APIResponse(responseCode = "422", description = "A pipeline names a plugin the document and the service lack")
    @Operation(operationId = "importProject", summary = "Import a meltano.yml, as YAML text or as JSON {yaml, environment, dryRun}: creates or"
            + " updates plugins and pipelines (dryRun=true: only the plan)")
    public ImportPlan importYaml(String yaml, @QueryParam("environment") @Parameter(description = "The environment whose pipelines are made"
                                         + " (default: default_environment, else dev); * for every environment")
                                 String environment,
                                 @QueryParam("dryRun") @Parameter(schema = @Schema(type = SchemaType.STRING)) Boolean dryRun,
                                 @QueryParam("onConflict") @Parameter(schema = @Schema(type = SchemaType.STRING))
                                 OnConflict onConflict) {
        ImportInput in = ImportInput.ofYaml(yaml, environment, dryRun);
        return ProjectMapper.toPlan(service.importProject(in.yaml(), in.environment(), in.dryRun(), onConflict));
    }

    @POST
    @Path("/import")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Import a meltano.yml sent as JSON {yaml, environment, dryRun}")
    public ImportPlan importJson(ImportRequest body, @QueryParam("environment") @Parameter(description = "The environment whose pipelines are made"
                                         + " (default: default_environment, else dev); * for every environment")
                                 String environment,
                                 @QueryParam("dryRun") @Parameter(schema = @Schema(type = SchemaType.STRING)) Boolean dryRun,
                                 @QueryParam("onConflict") @Parameter(schema = @Schema(type = SchemaType.STRING))
                                 OnConflict onConflict) {
        ImportInput in = ImportInput.ofJson(body, environment, dryRun);
        return ProjectMapper.toPlan(service.importProject(in.yaml(), in.environment(), in.dryRun(), onConflict));
    }

    @GET
    @Path("/assessment")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The assessment",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Assessment.class)))
    @Operation(operationId = "getProjectAssessment", summary = "Maturity of the imported project (basic, developing, mature) and findings")
    public Assessment assessment() {
        return ProjectMapper.toAssessment(service.assessment());
    }

    @GET
    @Path("/meltano.yml")
    @Produces({"application/yaml", "text/yaml", MediaType.TEXT_PLAIN})
    @APIResponse(responseCode = "200", description = "The meltano.yml",
            content = @Content(mediaType = "application/yaml", schema = @Schema(type = SchemaType.STRING)))
    @Operation(operationId = "exportProject", summary = "The plugins and pipelines as a meltano.yml (secrets as ${VAR} references)")
    public String export() {
        return service.export();
    }
}
