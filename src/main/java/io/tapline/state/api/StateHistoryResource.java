package io.tapline.state.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.LargeReads;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.Roles;
import io.tapline.state.StateHistoryService;
import io.tapline.state.StateService;
import io.tapline.state.store.StateHistoryRepository;
import io.tapline.state.store.StateRepository;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/**
 * {@code GET /api/v1/states/{stateId}/history}: every change of a state ID, newest first, each
 * with its value before and after ({@link StateResource.HistoryEntry}). Written as it is read
 * ({@link HistoryJson}), so a page of large states holds a few entries at a time; a page of more
 * than {@code tapline.api.large-read-bytes} is a large read ({@link LargeReads}). Viewer role.
 */
@Path("/api/v1")
@Tag(name = "States")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class StateHistoryResource {

    private final StateService states;
    private final StateHistoryService history;
    private final TaplineConfig config;
    private final LargeReads largeReads;
    /** The REST layer's mapper: history pages are written with it. */
    private final ObjectMapper mapper;

    public StateHistoryResource(StateService states, StateHistoryService history, TaplineConfig config,
                                LargeReads largeReads, ObjectMapper mapper) {
        this.states = states;
        this.history = history;
        this.config = config;
        this.largeReads = largeReads;
        this.mapper = mapper;
    }

    /**
     * A page of history entries (the shape {@link #history} writes; for the API document).
     *
     * @param items the entries, newest first
     * @param nextCursor cursor of the next page, absent on the last
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record HistoryPage(List<StateResource.HistoryEntry> items, String nextCursor) {
    }

    @GET
    @Path("/states/{stateId}/history")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "One page of history entries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = HistoryPage.class)))
    @APIResponse(responseCode = "400", description = "Invalid limit or cursor")
    @APIResponse(responseCode = "404", description = "The state ID has no history")
    @APIResponse(responseCode = "429", description = "A page of more than tapline.api.large-read-bytes while the caller"
            + " or the service has the most large reads answered")
    @Operation(operationId = "getStateHistory", summary = "Every change of the state ID, newest first, with the value before and after")
    public Response history(@PathParam("stateId") String stateId, @QueryParam("limit") String limit,
                            @QueryParam("cursor") String cursor) {
        int n = Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize());
        Long before = Cursors.decodeId(cursor);
        List<long[]> sizes = history.historySizes(stateId, before, n + 1);
        long bytes = 0;
        for (int i = 0; i < Math.min(n, sizes.size()); i++) {
            bytes += sizes.get(i)[1];
        }
        if (bytes > largeReads.threshold()) {
            largeReads.admit(); // a page of up to four whole states per entry
        }
        jakarta.ws.rs.core.StreamingOutput body = os -> {
            java.io.OutputStream buffered = new java.io.BufferedOutputStream(os, 65536);
            HistoryJson.write(sizes, n, new HistoryJson.Source() {
                @Override
                public List<StateRepository.Version> entries(long below, int k) {
                    return states.history(stateId, below, k);
                }

                @Override
                public java.util.Optional<StateRepository.Version> head(long version) {
                    return history.versionHead(stateId, version);
                }

                @Override
                public String side(long version, StateHistoryRepository.Side side) {
                    return history.versionSide(stateId, version, side);
                }
            }, mapper, largeReads.threshold(), buffered);
            buffered.flush();
        };
        return Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build();
    }
}
