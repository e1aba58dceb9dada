package io.tapline.run;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.tapline.common.api.Params;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.run.api.RunResponse;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.tapline.common.security.CurrentActor;
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
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.UUID;

/**
 * {@code /api/v1/runs}: run history, logs and cancel. Runs are triggered through
 * {@code POST /api/v1/pipelines/{name}/runs} ({@link PipelineRunsResource}). Reading
 * needs the viewer role, cancelling the operator role.
 */
@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Runs")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class RunResource {

    private final RunService service;
    private final RunLogFollowers followers;
    private final TaplineConfig config;
    private final CurrentActor actor;

    public RunResource(RunService service, RunLogFollowers followers, TaplineConfig config, CurrentActor actor) {
        this.actor = actor;
        this.service = service;
        this.followers = followers;
        this.config = config;
    }

    @GET
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid status, trigger, from, to, limit or cursor")
    @Operation(operationId = "listRuns", summary = "Runs, newest first, filtered by pipeline, status, trigger and creation time [from, to)")
    public Page<RunResponse> list(@QueryParam("pipeline") String pipeline, @QueryParam("status") String status,
                                  @QueryParam("trigger") String trigger, @QueryParam("from") String from,
                                  @QueryParam("to") String to, @QueryParam("limit") String limit,
                                  @QueryParam("cursor") String cursor) {
        return service.list(RunQueryParams.filter(pipeline, status, trigger, from, to), cursor,
                Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }

    @GET
    @Path("/{id}")
    @APIResponse(responseCode = "200", description = "The run",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = RunResponse.class)))
    @APIResponse(responseCode = "404", description = "No such run")
    @Operation(operationId = "getRun", summary = "A run with per-stream counts, exit codes, error summary and state before and after")
    public RunResponse get(@PathParam("id") String id) {
        return service.get(uuid(id));
    }

    @POST
    @Path("/{id}/cancel")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @APIResponse(responseCode = "202", description = "Cancel requested (a queued run is cancelled at once); the run",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = RunResponse.class)))
    @APIResponse(responseCode = "404", description = "No such run")
    @APIResponse(responseCode = "409", description = "The run has already ended")
    @Operation(operationId = "cancelRun", summary = "Cancel a queued or running run (SIGTERM, then SIGKILL after the grace period)")
    public Response cancel(@PathParam("id") String id) {
        return Response.accepted(service.cancel(uuid(id), actor.name())).build();
    }

    @GET
    @Path("/{id}/log")
    @Produces("text/plain;charset=UTF-8")
    @Blocking
    @APIResponse(responseCode = "200", description = "The log as plain text (UTF-8)",
            content = @Content(mediaType = MediaType.TEXT_PLAIN, schema = @Schema(type = SchemaType.STRING)))
    @APIResponse(responseCode = "404", description = "No such run")
    @APIResponse(responseCode = "429", description = "Too many followers of this run, of this caller, or in total")
    @Operation(operationId = "getRunLog", summary = "The run log (stderr of each component, prefixed); follow=true streams"
            + " while the run lasts (429 beyond the follower caps per run and per caller)")
    public Multi<byte[]> log(@PathParam("id") String id, @QueryParam("follow") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String follow) {
        boolean following = Params.flag("follow", follow, false);
        UUID runId = uuid(id);
        service.find(runId);
        return followers.stream(runId, following, actor.name());
    }

    private static UUID uuid(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ProblemException.notFound("Run", id);
        }
    }

}
