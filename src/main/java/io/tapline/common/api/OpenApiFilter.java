package io.tapline.common.api;

import io.tapline.common.error.Problem;
import io.tapline.common.error.ProblemType;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Completes the generated OpenAPI document ({@code /q/openapi}) with what annotations cannot say
 * once for all operations:
 * <ul>
 *   <li>the shared {@code Problem} schema (RFC 9457, {@link Problem}) as the
 *       {@code application/problem+json} body of every 4xx and 5xx response;</li>
 *   <li>the responses every {@code /api/v1} operation can give: 401 (no or bad token), 403 (role,
 *       or another site's Origin on a state change), for operations with a body 400 (malformed body)
 *       and 413 (too large), and 415 (media type) for those and every state change
 *       ({@link CrossSiteRequests});</li>
 *   <li>the four state actions, which share one Java method ({@code POST /states/<id>:<action>}),
 *       as four operations {@code /api/v1/states/{stateId}:merge|copy|move|rollback}.</li>
 * </ul>
 * Registered with {@code mp.openapi.filter}; runs once at build time.
 */
public class OpenApiFilter implements OASFilter {

    /** Name of the shared problem schema under {@code components.schemas}. */
    public static final String PROBLEM_SCHEMA = "Problem";
    private static final String API_PREFIX = "/api/v1";
    private static final String STATE_ACTION_PATH = "/api/v1/states/{stateId}";

    @Override
    public void filterOpenAPI(OpenAPI api) {
        if (api.getComponents() == null) {
            api.setComponents(OASFactory.createComponents());
        }
        api.getComponents().addSchema(PROBLEM_SCHEMA, problemSchema());
        if (api.getPaths() == null) {
            return;
        }
        splitStateActions(api);
        // The console's HTML pages (/ui, and / redirecting there) are not part of the API.
        new java.util.ArrayList<>(api.getPaths().getPathItems().keySet()).stream()
                .filter(p -> p.equals("/") || p.equals("/ui") || p.startsWith("/ui/"))
                .forEach(api.getPaths()::removePathItem);
        for (Map.Entry<String, PathItem> path : api.getPaths().getPathItems().entrySet()) {
            if (!path.getKey().startsWith(API_PREFIX)) {
                continue;
            }
            path.getValue().getOperations().forEach((method, op) -> complete(op, method != PathItem.HttpMethod.GET
                    && method != PathItem.HttpMethod.HEAD && method != PathItem.HttpMethod.OPTIONS));
        }
    }

    /** Adds the shared responses and points every error response at the problem schema. */
    private static void complete(Operation op, boolean changing) {
        APIResponses responses = op.getResponses() == null ? OASFactory.createAPIResponses() : op.getResponses();
        op.setResponses(responses);
        addIfMissing(responses, ProblemType.UNAUTHORIZED, "No bearer token, or an invalid or expired one.");
        addIfMissing(responses, ProblemType.FORBIDDEN, changing
                ? "The token's roles do not allow this operation, or it came from another site's page (Origin)."
                : "The token's roles do not allow this operation.");
        if (op.getRequestBody() != null) {
            addIfMissing(responses, ProblemType.MALFORMED_BODY, "The body is malformed or a field is invalid.");
            addIfMissing(responses, ProblemType.PAYLOAD_TOO_LARGE, "The body is larger than the configured limit.");
        }
        if (op.getRequestBody() != null || changing) {
            addIfMissing(responses, ProblemType.UNSUPPORTED_MEDIA_TYPE, op.getRequestBody() != null
                    ? "The body's Content-Type is not accepted."
                    : "A Content-Type was sent that is not JSON or YAML (a form's); send none.");
        }
        for (Map.Entry<String, APIResponse> r : responses.getAPIResponses().entrySet()) {
            if (!r.getKey().matches("[45]\\d\\d")) {
                continue;
            }
            APIResponse response = r.getValue();
            if (response.getDescription() == null || response.getDescription().isBlank()) {
                response.setDescription(defaultDescription(Integer.parseInt(r.getKey())));
            }
            response.setContent(OASFactory.createContent().addMediaType(Problem.MEDIA_TYPE,
                    OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM_SCHEMA))));
        }
    }

    private static void addIfMissing(APIResponses responses, ProblemType type, String description) {
        String code = Integer.toString(type.status());
        if (!responses.hasAPIResponse(code)) {
            responses.addAPIResponse(code, OASFactory.createAPIResponse().description(description));
        }
    }

    private static String defaultDescription(int status) {
        for (ProblemType t : ProblemType.values()) {
            if (t.status() == status) {
                return t.title();
            }
        }
        return "Error";
    }

    /**
     * Replaces the one {@code POST /api/v1/states/{stateId}} operation (the action is the last
     * {@code :} segment of the path parameter) by one operation per action.
     */
    private static void splitStateActions(OpenAPI api) {
        PathItem item = api.getPaths().getPathItem(STATE_ACTION_PATH);
        if (item == null || item.getPOST() == null) {
            return;
        }
        Operation shared = item.getPOST();
        item.setPOST(null);
        Map<String, Operation> actions = new LinkedHashMap<>();
        actions.put("merge", action(shared, "mergeState", "`meltano state merge`: merge a state into the stored one"
                        + " (or, with fromStateId, merge another state ID's state into this one)",
                stateBody(), "200", "409", "412"));
        actions.put("copy", action(shared, "copyState", "`meltano state copy`: copy the state to another state ID",
                toBody(), "200", "404", "409"));
        actions.put("move", action(shared, "moveState", "`meltano state move`: move the state to another state ID"
                + " (the source is cleared)", toBody(), "200", "404", "409"));
        actions.put("rollback", action(shared, "rollbackState", "Restore the state of a version from the history",
                versionBody(), "200", "404", "409", "412"));
        for (Map.Entry<String, Operation> a : actions.entrySet()) {
            PathItem p = OASFactory.createPathItem().POST(a.getValue());
            p.setParameters(item.getParameters());
            api.getPaths().addPathItem(STATE_ACTION_PATH + ":" + a.getKey(), p);
        }
        if (item.getOperations().isEmpty()) {
            api.getPaths().removePathItem(STATE_ACTION_PATH);
        }
    }

    private static Operation action(Operation shared, String id, String summary, Schema body, String... codes) {
        Operation op = OASFactory.createOperation().operationId(id).summary(summary).tags(shared.getTags())
                .security(shared.getSecurity())
                .requestBody(OASFactory.createRequestBody().required(!"mergeState".equals(id)).content(json(body)));
        for (org.eclipse.microprofile.openapi.models.parameters.Parameter p : shared.getParameters() == null
                ? List.<org.eclipse.microprofile.openapi.models.parameters.Parameter>of() : shared.getParameters()) {
            boolean keep = switch (p.getName()) {
                case "fromStateId" -> "mergeState".equals(id);
                case "If-Match" -> !"copyState".equals(id) && !"moveState".equals(id);
                default -> true;
            };
            if (keep) {
                op.addParameter(p);
            }
        }
        APIResponses responses = OASFactory.createAPIResponses();
        for (String code : codes) {
            APIResponse source = shared.getResponses() == null ? null : shared.getResponses().getAPIResponse(code);
            responses.addAPIResponse(code, source != null ? source : OASFactory.createAPIResponse());
        }
        APIResponse ok = responses.getAPIResponse("200");
        ok.setDescription("The state of the state ID written (the target of copy and move), as `meltano state get`"
                + " prints it; the ETag is its version");
        ok.setContent(json(OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)));
        op.setResponses(responses);
        return op;
    }

    private static Content json(Schema schema) {
        MediaType m = OASFactory.createMediaType().schema(schema);
        return OASFactory.createContent().addMediaType("application/json", m);
    }

    private static Schema stateBody() {
        return OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                .description("A Meltano state, as `meltano state merge` takes it (ignored with fromStateId)")
                .example(Map.of("singer_state", Map.of("bookmarks", Map.of("people",
                        Map.of("updated_at", "2024-01-05T12:00:00Z")))));
    }

    private static Schema toBody() {
        return OASFactory.createSchema().addType(Schema.SchemaType.OBJECT).addRequired("to")
                .addProperty("to", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("The destination state ID"))
                .example(Map.of("to", "prod:tap-csv-to-target-jsonl"));
    }

    private static Schema versionBody() {
        return OASFactory.createSchema().addType(Schema.SchemaType.OBJECT).addRequired("version")
                .addProperty("version", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER).minimum(
                        java.math.BigDecimal.ONE).description("A version from GET /api/v1/states/{stateId}/history"))
                .example(Map.of("version", 3));
    }

    /** The RFC 9457 problem body as {@link Problem} writes it. */
    private static Schema problemSchema() {
        Schema string = OASFactory.createSchema().addType(Schema.SchemaType.STRING);
        Schema fieldError = OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                .addRequired("field").addRequired("message")
                .addProperty("field", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("JSON path of the field in the request (config.password), or a parameter name"))
                .addProperty("message", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("What is wrong with it"));
        return OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                .description("An RFC 9457 problem (application/problem+json). Clients switch on `type`; types are"
                        + " listed in docs/problems.md. Some problems add members, e.g. `activeRunId` (run-active)"
                        + " or `pipelines` (in-use).")
                .addRequired("type").addRequired("title").addRequired("status").addRequired("detail")
                .addProperty("type", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("Stable problem type, urn:tapline:problem:<slug>")
                        .example(ProblemType.NOT_FOUND.uri()))
                .addProperty("title", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("Short summary of the type").example(ProblemType.NOT_FOUND.title()))
                .addProperty("status", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER)
                        .description("HTTP status code").example(404))
                .addProperty("detail", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("Human explanation of this occurrence")
                        .example("Plugin extractors/tap-csv does not exist."))
                .addProperty("instance", string.description("Request path"))
                .addProperty("errorId", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                        .description("Correlation id, also in the service log (5xx)"))
                .addProperty("errors", OASFactory.createSchema().addType(Schema.SchemaType.ARRAY).items(fieldError)
                        .description("Per-field errors of validation problems"))
                .additionalPropertiesBoolean(Boolean.TRUE);
    }
}
