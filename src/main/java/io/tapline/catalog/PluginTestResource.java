package io.tapline.catalog;

import io.tapline.catalog.api.TestResponse;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.concurrent.CompletionStage;

/**
 * {@code POST /api/v1/plugins/{type}/{name}:test}: a connection test as
 * {@code meltano config <plugin> test} does it ({@link ConnectionTest}); 200 with {@code ok} true
 * or false either way. Operator or admin role (it starts the connector). Runs on a probe thread
 * ({@link ProbeSlots}: capped per caller and in total, 429 beyond), never on an HTTP thread.
 */
@Path("/api/v1/plugins/{type}/{name}:test")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Plugins")
@RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
public class PluginTestResource {

    private final ConnectionTest tests;
    private final CurrentActor actor;
    private final ProbeSlots probes;

    public PluginTestResource(ConnectionTest tests, CurrentActor actor, ProbeSlots probes) {
        this.tests = tests;
        this.actor = actor;
        this.probes = probes;
    }

    @POST
    @Operation(operationId = "testPlugin", summary = "Test an extractor (passes at its first RECORD) or a loader"
            + " (its executable starts; --about when it has the about capability)")
    @APIResponse(responseCode = "200", description = "The result; `ok` false with the connector's last error line",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = TestResponse.class)))
    @APIResponse(responseCode = "400", description = "Not an extractor or loader, or a bad timeoutSeconds")
    @APIResponse(responseCode = "404", description = "No such plugin type or plugin")
    @APIResponse(responseCode = "422", description = "Unresolvable config, not installed, or a missing executable")
    @APIResponse(responseCode = "429", description = "The caller or the service has the most probes running"
            + " (tapline.catalog.probes-per-caller, max-probes)")
    public CompletionStage<TestResponse> test(@PathParam("type") String type, @PathParam("name") String name,
                                              @QueryParam("timeoutSeconds") Integer timeoutSeconds) {
        String by = actor.name();
        return probes.run(actor.key(), () -> tests.test(type, name, timeoutSeconds, by));
    }
}
