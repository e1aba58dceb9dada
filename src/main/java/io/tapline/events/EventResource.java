package io.tapline.events;

import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.common.security.Roles;
import io.tapline.events.api.DeliveryResponse;
import io.tapline.events.api.EventResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.UUID;

/**
 * {@code /api/v1/events}: the outbox of run and state events (run.succeeded, run.failed,
 * run.cancelled, pipeline.paused, state.not_advancing, state.large, state.not_passed), newest first. Reading needs
 * the viewer role; the delivery log of an event needs admin.
 */
@Path("/api/v1/events")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Events", description = "Run and state events, as webhooks receive them (docs/events.md)")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class EventResource {

    private final EventService service;
    private final TaplineConfig config;

    public EventResource(EventService service, TaplineConfig config) {
        this.service = service;
        this.config = config;
    }

    @GET
    @Operation(operationId = "listEvents", summary = "Events newest first, by pipeline and type (payload = the json webhook body)")
    public Page<EventResponse> list(@QueryParam("pipeline") String pipeline, @QueryParam("type") String type,
                                    @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return service.list(blank(pipeline), blank(type), cursor,
                Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getEvent", summary = "One event")
    public EventResponse get(@PathParam("id") String id) {
        return service.get(uuid(id));
    }

    @GET
    @Path("/{id}/deliveries")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "listEventDeliveries", summary = "The deliveries of one event to webhooks and to OpenLineage, with their attempts")
    public List<DeliveryResponse> deliveries(@PathParam("id") String id) {
        return service.deliveries(uuid(id));
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static UUID uuid(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ProblemException.notFound("Event", id);
        }
    }
}
