package io.tapline.state.api;

import io.tapline.state.store.Snapshot;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Page;
import io.tapline.common.api.Params;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemMappers;
import io.tapline.common.error.ProblemType;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.CurrentActor;
import io.tapline.common.security.Roles;
import io.tapline.state.MirrorTransfer;
import io.tapline.state.StateService;
import io.tapline.state.json.PythonJson;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.store.StateRepository;
import jakarta.annotation.security.RolesAllowed;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.time.OffsetDateTime;
import java.util.List;

import static io.tapline.state.api.StateAnswers.conflict;
import static io.tapline.state.api.StateAnswers.forced;
import static io.tapline.state.api.StateAnswers.merged;
import static io.tapline.state.api.StateAnswers.state;

/**
 * {@code /api/v1/states}: the Meltano {@code state} commands over HTTP. State bodies are the
 * exact bytes Meltano prints or accepts: {@code GET} returns what {@code meltano state get}
 * prints (compact, trailing newline), {@code PUT} takes what {@code meltano state set} takes.
 * The state ID is one path segment (it may contain {@code :}). Reading needs the viewer role;
 * edits the operator role; clearing every ID, imports and directory transfers the admin role.
 */
@Path("/api/v1")
@Tag(name = "States")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class StateResource {

    private final StateService states;
    private final TaplineConfig config;
    private final MirrorTransfer mirror;
    private final CurrentActor actor;
    private final io.tapline.common.api.LargeReads largeReads;
    /**
     * The REST layer's mapper, with its input checks ({@link io.tapline.common.api.JsonInputChecks}),
     * also refusing data after the document: how action bodies are read.
     */
    private final ObjectReader strict;

    public StateResource(StateService states, TaplineConfig config, MirrorTransfer mirror,
                         CurrentActor actor, ObjectMapper mapper, io.tapline.common.api.LargeReads largeReads) {
        this.actor = actor;
        this.largeReads = largeReads;
        this.strict = mapper.reader()
                .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.states = states;
        this.config = config;
        this.mirror = mirror;
    }

    /**
     * An entry of the state list.
     *
     * @param stateId the state ID
     * @param status {@code ok} when the merged state has {@code singer_state}, {@code empty} when it is
     *     {@code {}}, {@code invalid} otherwise (Meltano's green, yellow, red)
     * @param version current version (the ETag)
     * @param updatedAt last change (UTC)
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record StateEntry(String stateId, String status, long version, OffsetDateTime updatedAt) {
    }

    /**
     * One history entry.
     *
     * @param version version produced by the change
     * @param source RUN, STATE_EDIT, IMPORT, ROLLBACK or MELTANO
     * @param action what was done
     * @param actor who did it
     * @param runId the run, for RUN changes
     * @param createdAt when (UTC)
     * @param before {completed, partial} before, or null when the ID had no state
     * @param after {completed, partial} after, or null when cleared
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record HistoryEntry(long version, String source, String action, String actor, String runId,
                               OffsetDateTime createdAt, JsonNode before, JsonNode after) {
    }

    @GET
    @Path("/states")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid pattern, limit or cursor")
    @Operation(operationId = "listStates", summary = "State IDs, ascending; pattern is a glob as in `meltano state list --pattern`")
    public Page<StateEntry> list(@QueryParam("pattern") String pattern, @QueryParam("limit") String limit,
                                 @QueryParam("cursor") String cursor) {
        int n = Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize());
        return Page.of(states.list(pattern, Cursors.decode(cursor), n + 1), n, StateRepository.Listed::stateId,
                l -> new StateEntry(l.stateId(), l.status(), l.version(), l.updatedAt()));
    }

    @GET
    @Path("/states/{stateId}")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The state, as `meltano state get` prints it; the ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Invalid view")
    @APIResponse(responseCode = "404", description = "The state ID has no state")
    @APIResponse(responseCode = "409", description = "The partial state cannot be merged over the completed one (use view=split)")
    @Operation(operationId = "getState", summary = "The merged state, byte for byte as `meltano state get` prints it; view=split shows both sides")
    public Response get(@PathParam("stateId") String stateId, @QueryParam("view") String view) {
        boolean split = "split".equals(view);
        if (!split && !(view == null || view.isEmpty() || "merged".equals(view))) {
            throw ProblemException.invalid("view", "must be merged or split");
        }
        java.util.Optional<StateRepository.Row> row = states.read(stateId, largeReads.threshold(), largeReads::admit);
        java.util.Optional<StateBody> printed = row.flatMap(r -> StateBody.of(r, split));
        if (printed.isPresent()) {
            return body(printed.get(), row.get().version());
        }
        Snapshot s = row.map(Snapshot::of)
                .orElseGet(() -> Snapshot.none(stateId));
        String body;
        if (split) {
            ObjectNode both = JsonNodeFactory.instance.objectNode();
            both.set("completed", s.state().completed());
            both.set("partial", s.state().partial());
            body = PythonJson.write(both, PythonJson.Layout.COMPACT);
        } else {
            body = PythonJson.write(merged(s), PythonJson.Layout.COMPACT);
        }
        return Response.ok(body + "\n", MediaType.APPLICATION_JSON_TYPE).tag(ETags.of(s.version())).build();
    }

    @PUT
    @Path("/states/{stateId}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(type = SchemaType.OBJECT, description = "A Meltano state: {singer_state: {...}}"),
            examples = @ExampleObject(name = "example", value = "{\"singer_state\": {\"bookmarks\": {\"people\": {\"updated_at\": \"2024-01-05T12:00:00Z\"}}}}")))
    @APIResponse(responseCode = "200", description = "The state, as `meltano state get` prints it; the ETag is its version",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Not a JSON object, or no singer_state (validate=true)")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "setState", summary = "`meltano state set`: replace the state (validate=false skips the singer_state check)")
    public Response set(@PathParam("stateId") String stateId,
                        @QueryParam("validate") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String validate,
                        @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                        @HeaderParam("If-Match") String ifMatch, byte[] body) {
        boolean check = Params.flag("validate", validate, true);
        return state(states.set(stateId, StateService.text(body), check, actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
    }

    @POST
    @Path("/states/{stateId}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequestBody(content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "200", description = "The state written",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Invalid body")
    @APIResponse(responseCode = "404", description = "The source has no state")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "stateAction", summary = "Actions on a state ID, named after a colon: <stateId>:merge (`meltano state merge`,"
            + " or fromStateId=SRC), <stateId>:copy and <stateId>:move with {\"to\": DST}, <stateId>:rollback with"
            + " {\"version\": n}")
    public Response action(@PathParam("stateId") String target,
                           @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                           @QueryParam("fromStateId") String from, @HeaderParam("If-Match") String ifMatch,
                           byte[] bytes) {
        String body = StateService.text(bytes);
        int colon = target.lastIndexOf(':');
        String action = colon < 0 ? "" : target.substring(colon + 1);
        String stateId = colon < 0 ? target : target.substring(0, colon);
        switch (action) {
            case "merge" -> {
                if (from != null && !from.isEmpty()) {
                    return state(states.mergeFrom(from, stateId, actor.name(), forced(force)));
                }
                return state(states.merge(stateId, body, actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
            }
            case "copy" -> {
                return state(states.copy(stateId, to(body), actor.name(), forced(force)));
            }
            case "move" -> {
                return state(states.move(stateId, to(body), actor.name(), forced(force)));
            }
            case "rollback" -> {
                JsonNode v = member(body, "version");
                if (v.isMissingNode() || v.isNull()) {
                    throw ProblemException.invalid("version", "is required: a version number from the history");
                }
                if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 1) {
                    throw ProblemException.invalid("version", "must be a positive whole number, not " + v);
                }
                return state(states.rollback(stateId, v.asLong(), actor.name(), ETags.expectedVersion(ifMatch), forced(force)));
            }
            default -> throw new ProblemException(ProblemType.METHOD_NOT_ALLOWED, "POST needs an action after the state"
                    + " ID: <stateId>:merge, :copy, :move or :rollback; use PUT to set a state.");
        }
    }

    @DELETE
    @Path("/states/{stateId}")
    @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
    @APIResponse(responseCode = "204", description = "Cleared")
    @APIResponse(responseCode = "404", description = "The state ID has no state")
    @APIResponse(responseCode = "409", description = "A run of the state ID is active (force=true to edit anyway), or the value cannot be merged")
    @APIResponse(responseCode = "412", description = "If-Match does not match the current ETag")
    @Operation(operationId = "clearState", summary = "`meltano state clear ID` (history is kept; roll back to restore)")
    public Response clear(@PathParam("stateId") String stateId,
                          @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                          @HeaderParam("If-Match") String ifMatch) {
        states.clear(stateId, actor.name(), ETags.expectedVersion(ifMatch), forced(force));
        return Response.noContent().build();
    }

    @DELETE
    @Path("/states")
    @RolesAllowed(Roles.ADMIN)
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "How many state IDs were cleared: {\"cleared\": n}",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "confirm=all is missing")
    @APIResponse(responseCode = "409", description = "A run is active (force=true to clear anyway)")
    @Operation(operationId = "clearAllStates", summary = "`meltano state clear --all`: needs confirm=all")
    public Response clearAll(@QueryParam("confirm") String confirm,
                             @QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force) {
        if (!"all".equals(confirm)) {
            throw ProblemException.invalid("confirm", "clearing every state ID needs confirm=all");
        }
        int n = states.clearAll(actor.name(), forced(force));
        return Response.ok(JsonNodeFactory.instance.objectNode().put("cleared", n)).build();
    }

    /** Bodies up to this size are sent as one byte array, larger ones streamed as they are printed. */
    private static final long BUFFERED_BODY_BYTES = 256 * 1024;

    /** A state body printed from its stored text ({@link StateBody}), with its length and version. */
    private static Response body(StateBody body, long version) {
        if (body.length() <= BUFFERED_BODY_BYTES) {
            return Response.ok(body.bytes(), MediaType.APPLICATION_JSON_TYPE).tag(ETags.of(version)).build();
        }
        jakarta.ws.rs.core.StreamingOutput out = os -> {
            java.io.OutputStream buffered = new java.io.BufferedOutputStream(os, 65536);
            body.writeTo(buffered);
            buffered.flush();
        };
        return Response.ok(out, MediaType.APPLICATION_JSON_TYPE).header("Content-Length", body.length())
                .tag(ETags.of(version)).build();
    }

    private String to(String body) {
        JsonNode to = member(body, "to");
        if (to.isMissingNode() || to.isNull() || (to.isTextual() && to.asText().isEmpty())) {
            throw ProblemException.invalid("to", "is required: the destination state ID");
        }
        if (!to.isTextual()) {
            throw ProblemException.invalid("to", "must be a state ID (a string), not " + to.getNodeType().name()
                    .toLowerCase(java.util.Locale.ROOT));
        }
        return to.asText();
    }

    /**
     * The one member of an action's body ({@code {"to": DST}} for :copy and :move,
     * {@code {"version": n}} for :rollback), read strictly: a key given twice, or one the action does
     * not take, is refused (400) rather than ignored.
     *
     * @return the member's value, a missing node when absent
     */
    private JsonNode member(String body, String field) {
        if (body == null || body.isBlank()) {
            throw new ProblemException(ProblemType.MALFORMED_BODY, "A JSON body {\"" + field + "\": ...} is required.");
        }
        JsonNode n;
        try {
            n = strict.readTree(body);
        } catch (JsonProcessingException e) {
            throw new ProblemException(ProblemType.MALFORMED_BODY, "Invalid JSON provided: "
                    + ProblemMappers.plainJsonMessage(e.getOriginalMessage()));
        }
        if (!(n instanceof ObjectNode o)) {
            throw new ProblemException(ProblemType.MALFORMED_BODY, "The body must be a JSON object {\"" + field
                    + "\": ...}.");
        }
        for (var names = o.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals(field)) {
                throw ProblemException.invalid(name, "is not a member of this action's body, which is {\"" + field
                        + "\": ...}");
            }
        }
        return o.path(field);
    }

    /** A history row as the API shows it: both sides before and after, each read leniently ({@link #lenient}). */
    static HistoryEntry history(StateRepository.Version v) {
        return new HistoryEntry(v.version(), v.source(), v.action(), v.actor(),
                v.runId() == null ? null : v.runId().toString(), v.createdAt(),
                split(v.completedBefore(), v.partialBefore()), split(v.completedAfter(), v.partialAfter()));
    }

    private static JsonNode split(String completed, String partial) {
        if (completed == null) {
            return null;
        }
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.set("completed", lenient(completed));
        o.set("partial", lenient(partial));
        return o;
    }

    /** A stored side as history shows it: its tree ({@link Jsons#LENIENT}), or its text when it is not JSON. */
    static JsonNode lenient(String text) {
        try {
            return Jsons.LENIENT.readTree(text);
        } catch (Exception e) {
            return JsonNodeFactory.instance.textNode(text);
        }
    }

    /**
     * Body of the directory transfers.
     *
     * @param directory a Meltano local-filesystem backend root (import only; default: the mirror)
     * @param stateIds the IDs to transfer; empty or null for all
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record DirectoryRequest(String directory, List<String> stateIds) {
    }

    @GET
    @Path("/states:export")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "{stateId: {completed, partial}} for every state ID",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @Operation(operationId = "exportStates", summary = "Every state ID with its completed/partial split, as `meltano state export` prints it")
    public Response export() {
        largeReads.admit();
        jakarta.ws.rs.core.StreamingOutput body = os -> {
            java.io.Writer w = new java.io.BufferedWriter(new java.io.OutputStreamWriter(os,
                    java.nio.charset.StandardCharsets.UTF_8), 65536);
            states.export(w);
            w.write('\n');
            w.flush();
        };
        return Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(type = SchemaType.OBJECT, description = "{stateId: {completed, partial}}, as the export writes it"),
            examples = @ExampleObject(name = "example", value = "{\"dev:tap-csv-to-target-jsonl\": {\"completed\": {\"singer_state\": {}}, \"partial\": {}}}")))
    @APIResponse(responseCode = "200", description = "The imported state IDs",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "Not an object of states")
    @APIResponse(responseCode = "409", description = "A run of a listed state ID is active (force=true to import anyway)")
    @Operation(operationId = "importStates", summary = "`meltano state import`: overwrite each listed state ID (one transaction)")
    @Path("/states:import")
    @RolesAllowed(Roles.ADMIN)
    public ObjectNode importAll(@QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                                byte[] body) {
        int n = states.importAll(StateService.text(body), actor.name(), forced(force));
        return JsonNodeFactory.instance.objectNode().put("imported", n);
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The written state IDs",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "No mirror directory configured, or invalid fields")
    @Operation(operationId = "exportStatesToDirectory", summary = "Write state IDs into the configured Meltano backend mirror directory")
    @Path("/states:export-directory")
    @RolesAllowed(Roles.ADMIN)
    public ObjectNode exportDirectory(DirectoryRequest body) throws IOException {
        List<String> skipped = new java.util.ArrayList<>();
        List<String> ids = mirror.exportAll(body == null || body.stateIds() == null ? List.of() : body.stateIds(), skipped);
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.putPOJO("exported", ids);
        out.putPOJO("skipped", skipped);
        return out;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The imported state IDs",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "400", description = "The directory is not allowed (tapline.state.import-dirs) or invalid")
    @APIResponse(responseCode = "409", description = "A run of a listed state ID is active (force=true to import anyway)")
    @Operation(operationId = "importStatesFromDirectory", summary = "Import state IDs from a Meltano local-filesystem backend directory")
    @Path("/states:import-directory")
    @RolesAllowed(Roles.ADMIN)
    public ObjectNode importDirectory(@QueryParam("force") @Parameter(schema = @Schema(type = SchemaType.BOOLEAN)) String force,
                                      DirectoryRequest body) throws IOException {
        java.nio.file.Path dir = body == null || body.directory() == null ? null : java.nio.file.Path.of(body.directory());
        List<String> ids = mirror.importDirectory(dir, body == null || body.stateIds() == null ? List.of()
                : body.stateIds(), actor.name(), forced(force));
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.putPOJO("imported", ids);
        return out;
    }
}
