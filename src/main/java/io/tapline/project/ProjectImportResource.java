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
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code POST /api/v1/projects:import}, the {@code <collection>:<action>} spelling of
 * {@code POST /api/v1/projects/import} (an encoded {@code %3A} works too, see
 * {@link io.tapline.common.api.HttpFilters}). Same bodies, parameters and answers as
 * {@code POST /api/v1/projects/import} ({@link ProjectResource}); both call {@link ProjectService}.
 */
@Path("/api/v1/projects:import")
@RolesAllowed(Roles.ADMIN)
@Tag(name = "Projects")
public class ProjectImportResource {

    private final ProjectService service;

    public ProjectImportResource(ProjectService service) {
        this.service = service;
    }

    @POST
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
    @Operation(operationId = "importProjectColon", summary = "Import a meltano.yml, as YAML text or as JSON {yaml, environment, dryRun} (dryRun=true: only the plan)")
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
}
