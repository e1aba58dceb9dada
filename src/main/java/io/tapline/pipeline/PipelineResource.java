package io.tapline.pipeline;

import io.tapline.common.api.Params;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.schedule.ScheduleService;
import io.tapline.schedule.api.ScheduleResponse;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.tapline.common.security.CurrentActor;
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
 * {@code /api/v1/pipelines}: pipeline administration. Errors are problem+json; writes honour
 * {@code If-Match}. Reading needs the viewer role, triggering a run the operator role, changing
 * pipelines the admin role.
 */
@Path("/api/v1/pipelines")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Pipelines")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PipelineResource {

    private final PipelineService service;
    private final io.tapline.run.RunService runs;
    private final io.tapline.run.RunResource runResource;
    private final ScheduleService schedules;
    private final TaplineConfig config;
    private final CurrentActor actor;

    public PipelineResource(PipelineService service, io.tapline.run.RunService runs,
                            io.tapline.run.RunResource runResource, ScheduleService schedules, TaplineConfig config,
                            CurrentActor actor) {
        this.actor = actor;
        this.service = service;
        this.runs = runs;
        this.runResource = runResource;
        this.schedules = schedules;
        this.config = config;
    }

    @GET
    @Operation(summary = "List pipelines, newest first")
    public Page<PipelineResponse> list(@QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return service.list(cursor, Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }

    @POST
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Create a pipeline (409 if the name or state ID is taken, 422 for unknown plugins)")
    public Response create(PipelineRequest body) {
        PipelineResponse p = service.create(Params.requireBody(body));
        return Response.created(location(p.name())).tag(ETags.of(p.version())).entity(p).build();
    }

    @GET
    @Path("/{name}")
    @Operation(summary = "Read a pipeline")
    public Response get(@PathParam("name") String name) {
        PipelineResponse p = service.get(name);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Create (201) or replace (200) a pipeline; honours If-Match")
    public Response put(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch,
                        PipelineRequest body) {
        PipelineService.Upsert r = service.put(name, Params.requireBody(body), ifMatch);
        Response.ResponseBuilder b = r.created() ? Response.created(location(name)) : Response.ok();
        return b.tag(ETags.of(r.pipeline().version())).entity(r.pipeline()).build();
    }

    @DELETE
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Delete a pipeline (its state is kept); honours If-Match")
    public Response delete(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch) {
        service.delete(name, ifMatch);
        return Response.noContent().build();
    }

    @POST
    @Path("/{name}/runs")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(summary = "Queue a run (202), or 409 naming the active run of the same state ID")
    public Response trigger(@PathParam("name") String name, io.tapline.run.api.RunRequest body) {
        io.tapline.run.api.RunResponse run = runs.trigger(name, body, io.tapline.run.RunTrigger.API, actor.name());
        return Response.accepted(run).location(UriBuilder.fromPath("/api/v1/runs/{id}").build(run.id())).build();
    }

    @GET
    @Path("/{name}/runs")
    @Operation(summary = "A pipeline's runs, newest first")
    public Page<io.tapline.run.api.RunResponse> runs(@PathParam("name") String name, @QueryParam("status") String status,
                                                     @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        service.find(name);
        return runResource.list(name, status, null, null, null, limit, cursor);
    }

    @GET
    @Path("/{name}/schedule")
    @Operation(summary = "The pipeline's schedule and its next N fire times (next=1..100, default 5) in UTC and local time")
    public ScheduleResponse schedule(@PathParam("name") String name, @QueryParam("next") String next) {
        return schedules.view(name, next);
    }

    @POST
    @Path("/{name}/pause")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(summary = "Pause the pipeline's schedule (idempotent); returns the pipeline")
    public Response pause(@PathParam("name") String name) {
        PipelineResponse p = service.setScheduleEnabled(name, false);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    @POST
    @Path("/{name}/resume")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(summary = "Resume the pipeline's schedule from now, without replaying missed ticks (idempotent)")
    public Response resume(@PathParam("name") String name) {
        PipelineResponse p = service.setScheduleEnabled(name, true);
        return Response.ok(p).tag(ETags.of(p.version())).build();
    }

    private static java.net.URI location(String name) {
        return UriBuilder.fromPath("/api/v1/pipelines/{name}").build(name);
    }

}
