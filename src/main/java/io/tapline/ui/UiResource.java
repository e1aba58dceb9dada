package io.tapline.ui;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.security.Authenticated;
import io.quarkus.security.identity.SecurityIdentity;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.common.security.SecurityStartup;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;

/**
 * The console's pages: HTML shells rendered by Qute (names and ids escaped), each loading
 * {@code /ui/js/<page>.js}, which reads the data from {@code /api/v1} with the user's bearer token.
 * The shells hold no data, so they need no token; the API checks every call as usual.
 * Paths are fixed so that links can be shared: {@code /ui/pipelines}, {@code /ui/pipelines/{name}},
 * {@code /ui/runs/{id}}, {@code /ui/states}, {@code /ui/states/{stateId}}, {@code /ui/audit},
 * {@code /ui/signin}.
 */
@Path("/ui")
@PermitAll
@Produces(MediaType.TEXT_HTML)
public class UiResource {

    private final SecurityIdentity identity;
    private final CurrentActor actor;

    public UiResource(SecurityIdentity identity, CurrentActor actor) {
        this.identity = identity;
        this.actor = actor;
    }

    /** The page templates under {@code templates/UiResource/}. */
    @CheckedTemplate
    static class Templates {
        static native TemplateInstance signin();

        static native TemplateInstance pipelines();

        static native TemplateInstance pipeline(String name);

        static native TemplateInstance run(String id);

        static native TemplateInstance states();

        static native TemplateInstance state(String stateId);

        static native TemplateInstance audit();
    }

    /**
     * {@code /ui} and {@code /ui/}: 302 to the pipelines, with a relative {@code Location} (as
     * {@code /} has), so behind a proxy that ends TLS the browser stays on https.
     */
    @GET
    @Operation(hidden = true)
    public Response index() {
        return Response.status(Response.Status.FOUND).header("Location", "/ui/pipelines").build();
    }

    @GET
    @Path("/signin")
    @Operation(hidden = true)
    public TemplateInstance signin() {
        return Templates.signin();
    }

    @GET
    @Path("/pipelines")
    @Operation(hidden = true)
    public TemplateInstance pipelines() {
        return Templates.pipelines();
    }

    @GET
    @Path("/pipelines/{name}")
    @Operation(hidden = true)
    public TemplateInstance pipeline(@PathParam("name") String name) {
        return Templates.pipeline(name);
    }

    @GET
    @Path("/runs/{id}")
    @Operation(hidden = true)
    public TemplateInstance run(@PathParam("id") String id) {
        return Templates.run(id);
    }

    @GET
    @Path("/states")
    @Operation(hidden = true)
    public TemplateInstance states() {
        return Templates.states();
    }

    @GET
    @Path("/states/{stateId}")
    @Operation(hidden = true)
    public TemplateInstance state(@PathParam("stateId") String stateId) {
        return Templates.state(stateId);
    }

    @GET
    @Path("/audit")
    @Operation(hidden = true)
    public TemplateInstance audit() {
        return Templates.audit();
    }

    /**
     * Who the caller is, as the API sees the request's bearer token: the actor name recorded for
     * changes and the roles of {@link Roles}. The console asks this when it holds no token of its
     * own, i.e. when an authenticating proxy in front of the service adds the {@code Authorization}
     * header to every request; it only decides which buttons are shown.
     *
     * @return 200 {@code {"name": "...", "roles": ["operator"]}}; 401 problem+json without a valid token
     */
    @GET
    @Path("/session")
    @Authenticated
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(hidden = true)
    public Session session() {
        List<String> roles = Stream.of(Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN).filter(identity::hasRole).toList();
        return new Session(actor.name(), roles);
    }

    /**
     * Body of {@code GET /ui/session}.
     *
     * @param name the actor name (token's upn, else preferred_username, else sub)
     * @param roles the caller's roles among viewer, operator, admin
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Session(String name, List<String> roles) {
    }

    /**
     * Dev mode only: the admin token that dev mode wrote to {@value SecurityStartup#DEV_TOKEN_FILE}, so
     * the console signs in by itself on the developer's machine. In every other launch mode (and when
     * the file is missing) this is 404, whatever the request: a packaged or native service never
     * hands out a token.
     *
     * @return 200 text/plain with the token, never cached; or 404
     */
    @GET
    @Path("/dev-token")
    @Produces(MediaType.TEXT_PLAIN)
    @Operation(hidden = true)
    public Response devToken() throws IOException {
        java.nio.file.Path file = java.nio.file.Path.of(SecurityStartup.DEV_TOKEN_FILE);
        if (LaunchMode.current() != LaunchMode.DEVELOPMENT || !Files.isRegularFile(file)) {
            return Response.status(Response.Status.NOT_FOUND).type(MediaType.TEXT_PLAIN_TYPE).entity("not found\n").build();
        }
        String token = Files.readString(file, StandardCharsets.US_ASCII).trim();
        return Response.ok(token).header("Cache-Control", "no-store").build();
    }
}
