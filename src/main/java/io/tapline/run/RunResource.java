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
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.Locale;
import java.util.UUID;

/**
 * {@code /api/v1/runs}: run history, logs and cancel. Runs are triggered through
 * {@code POST /api/v1/pipelines/{name}/runs} ({@link io.tapline.pipeline.PipelineResource}). Reading
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
    @Operation(summary = "Runs, newest first, filtered by pipeline, status, trigger and creation time [from, to)")
    public Page<RunResponse> list(@QueryParam("pipeline") String pipeline, @QueryParam("status") String status,
                                  @QueryParam("trigger") String trigger, @QueryParam("from") String from,
                                  @QueryParam("to") String to, @QueryParam("limit") String limit,
                                  @QueryParam("cursor") String cursor) {
        RunRepository.RunFilter filter = new RunRepository.RunFilter(pipeline,
                parse(RunStatus.class, "status", status), parse(RunTrigger.class, "trigger", trigger),
                Params.time("from", from), Params.time("to", to));
        return service.list(filter, cursor,
                Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "A run with per-stream counts, exit codes, error summary and state before and after")
    public RunResponse get(@PathParam("id") String id) {
        return service.get(uuid(id));
    }

    @POST
    @Path("/{id}/cancel")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Operation(summary = "Cancel a queued or running run (SIGTERM, then SIGKILL after the grace period)")
    public Response cancel(@PathParam("id") String id) {
        return Response.accepted(service.cancel(uuid(id), actor.name())).build();
    }

    @GET
    @Path("/{id}/log")
    @Produces("text/plain;charset=UTF-8")
    @Blocking
    @Operation(summary = "The run log (stderr of each component, prefixed); follow=true streams while the run lasts"
            + " (429 beyond the follower caps per run and per caller)")
    public Multi<byte[]> log(@PathParam("id") String id, @QueryParam("follow") boolean follow) {
        UUID runId = uuid(id);
        service.find(runId);
        return followers.stream(runId, follow, actor.name());
    }

    private static UUID uuid(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ProblemException.notFound("Run", id);
        }
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            StringBuilder names = new StringBuilder();
            for (E c : type.getEnumConstants()) {
                names.append(names.isEmpty() ? "" : ", ").append(c.name());
            }
            throw ProblemException.invalid(field, "must be one of " + names);
        }
    }

}
