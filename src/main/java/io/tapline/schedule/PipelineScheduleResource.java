package io.tapline.schedule;

import io.tapline.common.api.ETags;
import io.tapline.common.security.Roles;
import io.tapline.pipeline.PipelineService;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.schedule.api.ScheduleResponse;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/v1/pipelines/{name}/schedule|pause|resume}: a pipeline's schedule with its next fire
 * times, and pausing and resuming it. Part of the pipeline's API (tag Pipelines) but owned by the
 * schedule feature, which sits above pipeline (docs/architecture.md). Reading needs the viewer
 * role, pausing and resuming the operator role.
 */
@Path("/api/v1/pipelines/{name}")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Pipelines")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PipelineScheduleResource {

    private final ScheduleService schedules;
    private final PipelineService pipelines;

    public PipelineScheduleResource(ScheduleService schedules, PipelineService pipelines) {
        this.schedules = schedules;
        this.pipelines = pipelines;
    }

    @GET
    @Path("/schedule")
    @Operation(operationId = "getPipelineSchedule",
            summary = "The pipeline's schedule and its next N fire times (next=1..100, default 5) in UTC and local time")
    @APIResponse(responseCode = "200", description = "The schedule")
    @APIResponse(responseCode = "400", description = "Invalid next")
    @APIResponse(responseCode = "404", description = "No such pipeline")
    public ScheduleResponse schedule(@PathParam("name") String name, @QueryParam("next") String next) {
        return schedules.view(name, next);
    }

    @POST
    @Path("/pause")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(operationId = "pausePipeline", summary = "Pause the pipeline's schedule (idempotent); returns the pipeline")
    @APIResponse(responseCode = "200", description = "The pipeline, paused",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "404", description = "No such pipeline")
    public Response pause(@PathParam("name") String name) {
        PipelineResponse p = pipelines.setScheduleEnabled(name, false);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @POST
    @Path("/resume")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(operationId = "resumePipeline",
            summary = "Resume the pipeline's schedule from now, without replaying missed ticks (idempotent)")
    @APIResponse(responseCode = "200", description = "The pipeline, resumed",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PipelineResponse.class)))
    @APIResponse(responseCode = "404", description = "No such pipeline")
    public Response resume(@PathParam("name") String name) {
        PipelineResponse p = pipelines.setScheduleEnabled(name, true);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }
}
