package io.tapline.audit;

import io.tapline.common.api.Params;
import io.tapline.audit.api.AuditEventResponse;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code /api/v1/audit}: the audit trail, for admins. */
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Audit")
@RolesAllowed(Roles.ADMIN)
public class AuditResource {

    private final AuditService service;
    private final TaplineConfig config;

    public AuditResource(AuditService service, TaplineConfig config) {
        this.service = service;
        this.config = config;
    }

    @GET
    @APIResponse(responseCode = "200", description = "One page; `next` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid from, to, limit or cursor")
    @Operation(operationId = "listAuditEvents", summary = "Audit events, newest first, filtered by actor, action (exact, or a prefix such as"
            + " 'state.'), targetType, target and time [from, to)")
    public Page<AuditEventResponse> list(@QueryParam("actor") String actor, @QueryParam("action") String action,
                                         @QueryParam("targetType") String targetType,
                                         @QueryParam("target") String target, @QueryParam("from") String from,
                                         @QueryParam("to") String to, @QueryParam("limit") String limit,
                                         @QueryParam("cursor") String cursor) {
        AuditRepository.AuditFilter filter = new AuditRepository.AuditFilter(blank(actor), blank(action),
                blank(targetType), blank(target), Params.time("from", from), Params.time("to", to));
        return service.list(filter, cursor, Cursors.limit(limit, config.api().defaultPageSize(),
                config.api().maxPageSize()));
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
