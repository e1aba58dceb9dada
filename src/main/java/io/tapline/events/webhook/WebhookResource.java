package io.tapline.events.webhook;

import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.api.Params;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.events.api.DeliveryResponse;
import io.tapline.events.api.WebhookRequest;
import io.tapline.events.api.WebhookResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.UUID;

/**
 * {@code /api/v1/webhooks} (admin): subscriptions to run and state events. Each delivery is a JSON
 * POST signed with {@code Tapline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>},
 * with {@code Tapline-Event} (the type) and {@code Tapline-Delivery} (the delivery id, the same on
 * every retry); any 2xx acknowledges it, anything else is retried with exponential backoff for up
 * to {@code tapline.events.give-up-after} (a day). docs/events.md has the bodies.
 */
@Path("/api/v1/webhooks")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "Webhooks", description = "Signed HTTP deliveries of run and state events (docs/events.md)")
@RolesAllowed(Roles.ADMIN)
public class WebhookResource {

    private final WebhookService service;
    private final CurrentActor actor;
    private final TaplineConfig config;

    public WebhookResource(WebhookService service, CurrentActor actor, TaplineConfig config) {
        this.service = service;
        this.actor = actor;
        this.config = config;
    }

    @POST
    @Operation(operationId = "createWebhook", summary = "Subscribe a URL to events (signed with the secret, which is never returned)",
            description = "Body: url, events (run.succeeded, run.failed, run.cancelled, pipeline.paused, "
                    + "state.not_advancing, state.large, state.not_passed), pipelines (name globs, default [\"*\"]), secret (16 to 512 "
                    + "characters), format (json or slack). The URL's host must be allowed by "
                    + "tapline.webhooks.allowed-hosts (default: public addresses only). 201 with Location; 400 "
                    + "problem+json naming each invalid field.")
    public Response create(WebhookRequest body) {
        WebhookResponse w = service.create(Params.requireBody(body), actor.name());
        return Response.created(UriBuilder.fromResource(WebhookResource.class).path(w.id().toString()).build())
                .entity(w).build();
    }

    @GET
    @Operation(operationId = "listWebhooks", summary = "List webhook subscriptions, newest first (secrets are never returned)")
    public Page<WebhookResponse> list() {
        List<WebhookResponse> all = service.list();
        return new Page<>(all, null);
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getWebhook", summary = "A webhook subscription")
    public WebhookResponse get(@PathParam("id") String id) {
        return service.get(uuid(id));
    }

    @DELETE
    @Path("/{id}")
    @Operation(operationId = "deleteWebhook", summary = "Delete a webhook subscription with its pending deliveries and delivery log (204)")
    public Response delete(@PathParam("id") String id) {
        service.delete(uuid(id), actor.name());
        return Response.noContent().build();
    }

    @GET
    @Path("/{id}/deliveries")
    @Operation(operationId = "listWebhookDeliveries", summary = "The delivery log, newest first: status, attempts, last status code and error, next try, "
            + "and every attempt")
    public Page<DeliveryResponse> deliveries(@PathParam("id") String id, @QueryParam("limit") String limit,
                                             @QueryParam("cursor") String cursor) {
        return service.deliveries(uuid(id), cursor,
                Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
    }

    private static UUID uuid(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ProblemException.notFound("Webhook", id);
        }
    }
}
