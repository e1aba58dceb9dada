package io.tapline.openapi;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import io.tapline.support.Api;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /q/openapi} as a client generator reads it: a valid OpenAPI 3 document, one operation per
 * action with a unique operationId, every status the service answers with documented (the table
 * holds what the other tests of this project see, and a few calls here check it live), error
 * bodies described by the shared {@code Problem} schema, and request bodies typed.
 */
@QuarkusTest
class OpenApiDocumentTest {

    private static OpenAPI api;

    /**
     * Status codes the project's tests see per operation, by operationId (gathered from the
     * resource, engine, state, schedule, audit, security, import and patch tests).
     */
    private static final Map<String, Set<Integer>> SEEN = new LinkedHashMap<>();

    static {
        seen("listAllPlugins", 200, 400, 401);
        seen("listPlugins", 200, 404);
        seen("createPlugin", 201, 400, 401, 403, 409, 415);
        seen("getPlugin", 200, 404);
        seen("putPlugin", 200, 201, 400, 412);
        seen("patchPlugin", 200, 400, 404, 412, 415);
        seen("deletePlugin", 204, 404, 409, 412);
        seen("listExtractorStreams", 200, 404, 409);
        seen("discoverExtractorCatalog", 200, 502);
        seen("testPlugin", 200, 400, 404);
        seen("getPluginAbout", 200, 400);
        seen("listPipelines", 200, 401);
        seen("createPipeline", 201, 400, 401, 409, 422);
        seen("getPipeline", 200, 404);
        seen("putPipeline", 200, 201, 400, 412);
        seen("patchPipeline", 200, 400, 412);
        seen("deletePipeline", 204, 409, 412);
        seen("triggerRun", 202, 404, 409);
        seen("listPipelineRuns", 200);
        seen("getPipelineSchedule", 200, 400, 404);
        seen("pausePipeline", 200);
        seen("resumePipeline", 200);
        seen("listRuns", 200, 400, 401, 403);
        seen("getRun", 200, 404);
        seen("cancelRun", 202, 409);
        seen("getRunLog", 200);
        seen("listStates", 200);
        seen("getState", 200, 404);
        seen("setState", 200, 400, 409, 412, 413);
        seen("clearState", 204, 404);
        seen("clearAllStates", 200, 400);
        seen("mergeState", 200, 400, 409);
        seen("copyState", 200, 404);
        seen("moveState", 200);
        seen("rollbackState", 200, 400, 404);
        seen("getStateHistory", 200);
        seen("getBookmark", 200, 404);
        seen("putBookmark", 200);
        seen("deleteBookmark", 200);
        seen("exportStates", 200);
        seen("importStates", 200, 400);
        seen("importStatesFromDirectory", 200, 400);
        seen("exportStatesToDirectory", 200);
        seen("listAuditEvents", 200, 400, 403);
        seen("importProject", 200, 400);
        seen("importProjectColon", 200);
        seen("exportProject", 200);
        seen("getProjectAssessment", 200);
    }

    private static void seen(String operationId, Integer... codes) {
        SEEN.put(operationId, Set.of(codes));
    }

    @BeforeEach
    void parse() {
        if (api != null) {
            return;
        }
        String doc = RestAssured.given().accept("application/json").get("/q/openapi?format=json").then()
                .statusCode(200).extract().asString();
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(doc, null, options);
        assertTrue(result.getMessages() == null || result.getMessages().isEmpty(),
                "OpenAPI parser messages: " + result.getMessages());
        api = result.getOpenAPI();
        assertNotNull(api);
    }

    @Test
    void documentIsValidOpenApi3WithTheProblemSchema() {
        assertTrue(api.getOpenapi().startsWith("3."), api.getOpenapi());
        var problem = api.getComponents().getSchemas().get("Problem");
        assertNotNull(problem, "components.schemas.Problem");
        assertTrue(problem.getRequired().containsAll(List.of("type", "title", "status", "detail")),
                "Problem.required: " + problem.getRequired());
        assertTrue(problem.getProperties().keySet().containsAll(List.of("type", "title", "status", "detail",
                "instance", "errorId", "errors")), "Problem.properties: " + problem.getProperties().keySet());
    }

    @Test
    void everyOperationHasAUniqueIdAndTheStateActionsAreFourOperations() {
        Set<String> ids = new HashSet<>();
        for (Map.Entry<String, Operation> op : operations().entrySet()) {
            String id = op.getValue().getOperationId();
            assertNotNull(id, op.getKey() + " has no operationId");
            assertTrue(ids.add(id), "operationId " + id + " is used twice");
        }
        for (String action : List.of("merge", "copy", "move", "rollback")) {
            PathItem item = api.getPaths().get("/api/v1/states/{stateId}:" + action);
            assertNotNull(item, "path of state action " + action);
            assertEquals(action + "State", item.getPost().getOperationId());
        }
        assertTrue(ids.containsAll(SEEN.keySet()), "operations missing from the document: "
                + new TreeSet<>(SEEN.keySet()).stream().filter(i -> !ids.contains(i)).toList());
    }

    @Test
    void everyStatusTheTestsSeeIsDocumented() {
        Map<String, Operation> byId = new LinkedHashMap<>();
        operations().values().forEach(o -> byId.put(o.getOperationId(), o));
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Set<Integer>> e : SEEN.entrySet()) {
            Operation op = byId.get(e.getKey());
            assertNotNull(op, e.getKey());
            for (int code : e.getValue()) {
                if (!op.getResponses().containsKey(Integer.toString(code))) {
                    missing.add(e.getKey() + " " + code);
                }
            }
        }
        assertEquals(List.of(), missing, "statuses answered but not documented");
    }

    @Test
    void everyErrorResponseIsAProblemAndEverySuccessHasABodySchema() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Operation> e : operations().entrySet()) {
            for (Map.Entry<String, ApiResponse> r : e.getValue().getResponses().entrySet()) {
                int code = Integer.parseInt(r.getKey());
                var content = r.getValue().getContent();
                if (code >= 400) {
                    MediaType m = content == null ? null : content.get("application/problem+json");
                    if (m == null || m.getSchema() == null || !"#/components/schemas/Problem".equals(m.getSchema().get$ref())) {
                        wrong.add(e.getKey() + " " + code + " is not a Problem");
                    }
                } else if (code != 204 && (content == null || content.isEmpty()
                        || content.values().stream().anyMatch(c -> c.getSchema() == null))) {
                    wrong.add(e.getKey() + " " + code + " has no body schema");
                }
            }
            for (String code : List.of("401", "403")) {
                if (!e.getValue().getResponses().containsKey(code)) {
                    wrong.add(e.getKey() + " lacks " + code);
                }
            }
            if (e.getValue().getResponses().keySet().stream().noneMatch(c -> c.startsWith("2"))) {
                wrong.add(e.getKey() + " has no success response");
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void requestBodiesAreTypedAndMainFieldsRequired() {
        var schemas = api.getComponents().getSchemas();
        // executable has defaults (the parent's with inheritFrom, the plugin's name with pipUrl), so the
        // schema says when it is needed instead of marking it required
        var plugin = schemas.get("PluginRequest");
        assertTrue(plugin.getRequired() == null || !plugin.getRequired().contains("executable"));
        String executable = ((io.swagger.v3.oas.models.media.Schema<?>) plugin.getProperties().get("executable")).getDescription();
        assertTrue(executable.contains("required unless inheritFrom or pipUrl"), executable);
        assertTrue(schemas.get("PipelineRequest").getRequired().containsAll(List.of("extractor", "loader")));
        Operation set = api.getPaths().get("/api/v1/states/{stateId}").getPut();
        var body = set.getRequestBody().getContent().get("application/json");
        assertTrue("object".equals(body.getSchema().getType()) || (body.getSchema().getTypes() != null
                && body.getSchema().getTypes().contains("object")), "state body is an object, not a string");
        assertNotNull(body.getExamples(), "state body example");
        Operation rollback = api.getPaths().get("/api/v1/states/{stateId}:rollback").getPost();
        assertTrue(rollback.getRequestBody().getContent().get("application/json").getSchema().getRequired()
                .contains("version"));
        Operation trigger = api.getPaths().get("/api/v1/pipelines/{name}/runs").getPost();
        assertEquals("#/components/schemas/RunResponse",
                trigger.getResponses().get("202").getContent().get("application/json").getSchema().get$ref());
        assertNotNull(api.getPaths().get("/api/v1/plugins/{type}").getPost().getRequestBody().getContent()
                .get("application/json").getExamples(), "create-plugin example");
        assertNotNull(api.getPaths().get("/api/v1/pipelines/{name}").getPatch().getRequestBody().getContent()
                .get("application/merge-patch+json"), "PATCH takes application/merge-patch+json");
    }

    /** A few answers of the running service, each checked against the document. */
    @Test
    void liveAnswersAreDocumented() {
        String tap = unique("tap-oa");
        documented("createPlugin", json().body("{\"name\":\"" + tap + "\",\"executable\":\"tap-x\"}")
                .post("/api/v1/plugins/extractors").statusCode());
        documented("createPlugin", json().body("{\"name\":\"" + tap + "\",\"executable\":\"tap-x\"}")
                .post("/api/v1/plugins/extractors").statusCode());
        documented("createPlugin", json().contentType("text/plain").body("x")
                .post("/api/v1/plugins/extractors").statusCode());
        documented("getPlugin", json().get("/api/v1/plugins/extractors/" + unique("none")).statusCode());
        documented("listPlugins", json().get("/api/v1/plugins/taps").statusCode());
        documented("putPlugin", json().header("If-Match", "\"99\"").body("{\"executable\":\"tap-x\"}")
                .put("/api/v1/plugins/extractors/" + tap).statusCode());
        documented("patchPlugin", json().contentType("application/merge-patch+json")
                .body("{\"args\":[\"--verbose\"]}").patch("/api/v1/plugins/extractors/" + tap).statusCode());
        documented("createPipeline", json().body("{\"name\":\"" + unique("p") + "\",\"extractor\":\"" + tap
                + "\",\"loader\":\"no-such-loader\"}").post("/api/v1/pipelines").statusCode());
        documented("listPipelines", Api.anonymous().get("/api/v1/pipelines").statusCode());
        documented("getRun", json().get("/api/v1/runs/00000000-0000-0000-0000-000000000000").statusCode());
        documented("listRuns", json().get("/api/v1/runs?limit=-1").statusCode());
        documented("getState", json().get("/api/v1/states/" + unique("dev:none")).statusCode());
        documented("deletePlugin", json().delete("/api/v1/plugins/extractors/" + tap).statusCode());
    }

    private static void documented(String operationId, int status) {
        Operation op = operations().values().stream().filter(o -> operationId.equals(o.getOperationId())).findFirst()
                .orElseThrow();
        assertTrue(op.getResponses().containsKey(Integer.toString(status)),
                operationId + " answered " + status + " but documents only " + op.getResponses().keySet());
    }

    private static Map<String, Operation> operations() {
        Map<String, Operation> ops = new LinkedHashMap<>();
        api.getPaths().forEach((path, item) -> {
            if (path.startsWith("/api/v1")) {
                item.readOperationsMap().forEach((method, op) -> ops.put(method + " " + path, op));
            }
        });
        return ops;
    }
}
