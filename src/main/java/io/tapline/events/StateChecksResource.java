package io.tapline.events;

import io.tapline.common.api.Params;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.events.api.StateChecksRequest;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/v1/pipelines/{name}/state-checks}: the pipeline's threshold of
 * {@code state.not_advancing} (unchanged successful runs with records in a row).
 */
@Path("/api/v1/pipelines/{name}/state-checks")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Events")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class StateChecksResource {

    private final EventService service;
    private final CurrentActor actor;

    public StateChecksResource(EventService service, CurrentActor actor) {
        this.service = service;
        this.actor = actor;
    }

    @GET
    @Operation(operationId = "getStateChecks", summary = "The pipeline's not-advancing threshold (own, and the one in force)")
    public StateChecksRequest get(@PathParam("name") String name) {
        return service.stateChecks(name);
    }

    @PUT
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putStateChecks", summary = "Set the pipeline's not-advancing threshold: {\"notAdvancingRuns\": 1..100, or null for the setting}")
    public StateChecksRequest put(@PathParam("name") String name, StateChecksRequest body) {
        return service.setStateChecks(name, Params.requireBody(body), actor.name());
    }
}
