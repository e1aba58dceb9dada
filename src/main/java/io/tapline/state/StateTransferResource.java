package io.tapline.state;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Whole-store transfers: {@code meltano state export/import} and the Meltano backend directory. */
@jakarta.ws.rs.Path("/api/v1")
@Tag(name = "States")
public class StateTransferResource {

    private final StateService states;
    private final StateMirror mirror;

    public StateTransferResource(StateService states, StateMirror mirror) {
        this.states = states;
        this.mirror = mirror;
    }

    /**
     * Body of the directory transfers.
     *
     * @param directory a Meltano local-filesystem backend root (import only; default: the mirror)
     * @param stateIds the IDs to transfer; empty or null for all
     */
    public record DirectoryRequest(String directory, List<String> stateIds) {
    }

    @GET
    @jakarta.ws.rs.Path("/states:export")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Every state ID with its completed/partial split, as `meltano state export` prints it")
    public Response export() {
        return Response.ok(states.export() + "\n", MediaType.APPLICATION_JSON_TYPE).build();
    }

    @POST
    @jakarta.ws.rs.Path("/states:import")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "`meltano state import`: overwrite each listed state ID (one transaction)")
    public ObjectNode importAll(@QueryParam("force") boolean force, String body) {
        return JsonNodeFactory.instance.objectNode().put("imported", states.importAll(body, "api", force));
    }

    @POST
    @jakarta.ws.rs.Path("/states:export-directory")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Write state IDs into the configured Meltano backend mirror directory")
    public ObjectNode exportDirectory(DirectoryRequest body) throws IOException {
        List<String> ids = mirror.exportAll(body == null || body.stateIds() == null ? List.of() : body.stateIds());
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.putPOJO("exported", ids);
        return out;
    }

    @POST
    @jakarta.ws.rs.Path("/states:import-directory")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Import state IDs from a Meltano local-filesystem backend directory")
    public ObjectNode importDirectory(@QueryParam("force") boolean force, DirectoryRequest body) throws IOException {
        Path dir = body == null || body.directory() == null ? null : Path.of(body.directory());
        List<String> ids = mirror.importDirectory(dir, body == null || body.stateIds() == null ? List.of()
                : body.stateIds(), "api", force);
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.putPOJO("imported", ids);
        return out;
    }
}
