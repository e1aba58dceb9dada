package io.tapline.run;

import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.pipeline.PipelineService;
import io.tapline.run.api.RunRequest;
import io.tapline.run.api.RunResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
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

/**
 * {@code /api/v1/pipelines/{name}/runs}: queue a run of a pipeline and list its runs. Part of the
 * pipeline's API (tag Pipelines) but owned by the run feature, which sits above pipeline
 * (docs/architecture.md). Reading needs the viewer role, triggering the operator role.
 */
@Path("/api/v1/pipelines/{name}/runs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Pipelines")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PipelineRunsResource {

    private final RunService runs;
    private final PipelineService pipelines;
    private final TaplineConfig config;
    private final CurrentActor actor;

    public PipelineRunsResource(RunService runs, PipelineService pipelines, TaplineConfig config, CurrentActor actor) {
        this.runs = runs;
        this.pipelines = pipelines;
        this.config = config;
        this.actor = actor;
    }

    @POST
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(operationId = "triggerRun", summary = "Queue a run (202), or 409 naming the active run of the same state ID")
    @RequestBody(content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = RunRequest.class),
            examples = {@ExampleObject(name = "incremental", value = "{}"),
                    @ExampleObject(name = "full refresh", value = "{\"fullRefresh\": true}")}))
    @APIResponse(responseCode = "202", description = "Queued; Location is the run",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = RunResponse.class)))
    @APIResponse(responseCode = "400", description = "Invalid fields")
    @APIResponse(responseCode = "404", description = "No such pipeline")
    @APIResponse(responseCode = "409", description = "A run of the same state ID is queued or running (`activeRunId`)")
    public Response trigger(@PathParam("name") String name, RunRequest body) {
        RunResponse run = runs.trigger(name, body, RunTrigger.API, actor.name());
        return Response.accepted(run).location(UriBuilder.fromPath("/api/v1/runs/{id}").build(run.id())).build();
    }

    @GET
    @Operation(operationId = "listPipelineRuns", summary = "A pipeline's runs, newest first")
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid status, limit or cursor")
    @APIResponse(responseCode = "404", description = "No such pipeline")
    public Page<RunResponse> runs(@PathParam("name") String name, @QueryParam("status") String status,
                                  @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        pipelines.find(name);
        return runs.list(RunQueryParams.filter(name, status, null, null, null), cursor,
                Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }
}
