package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.concurrent.CompletionStage;

/**
 * {@code GET /api/v1/plugins/{type}/{name}/about}: the connector's {@code --about --format=json}
 * as it printed it. Operator or admin role (it starts the connector). Runs on a probe thread
 * ({@link ProbeSlots}: capped per caller and in total, 429 beyond).
 */
@Path("/api/v1/plugins/{type}/{name}/about")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
public class PluginAboutResource {

    private final ConnectionTest tests;
    private final ProbeSlots probes;
    private final CurrentActor actor;

    public PluginAboutResource(ConnectionTest tests, ProbeSlots probes, CurrentActor actor) {
        this.tests = tests;
        this.probes = probes;
        this.actor = actor;
    }

    @GET
    @Operation(operationId = "getPluginAbout", summary = "The connector's --about --format=json")
    @APIResponse(responseCode = "200", description = "What the connector printed",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Not an extractor or loader, or no 'about' capability")
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    @APIResponse(responseCode = "422", description = "Unresolvable config, not installed, or a missing executable")
    @APIResponse(responseCode = "502", description = "--about failed or printed no JSON object (connector-failed)")
    @APIResponse(responseCode = "429", description = "The caller or the service has the most probes running"
            + " (tapline.catalog.probes-per-caller, max-probes)")
    public CompletionStage<JsonNode> about(@PathParam("type") String type, @PathParam("name") String name) {
        return probes.run(actor.key(), () -> tests.about(type, name));
    }
}
