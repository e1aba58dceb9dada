package io.tapline.common.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.tapline.support.Api;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.tapline.support.Api.problem;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Walks every operation of the API with no token and with viewer, operator and admin tokens, and
 * checks 401 / 403 / allowed against the role table below. The operations are read from the
 * compiled resource classes (every {@code @Path} class under {@code io.tapline}) and cross-checked
 * with the OpenAPI document, so a new endpoint cannot be missed: one missing from the table fails
 * the test (give it a role there and a {@code @RolesAllowed} in its resource). The OpenAPI document
 * alone is not enough: it folds the {@code states:<action>} paths into one {@code {collection}} path.
 */
@QuarkusTest
class EndpointSecurityTest {

    private enum Need { VIEWER, OPERATOR, ADMIN }

    /** The least role each operation needs, keyed "METHOD path" as the OpenAPI document spells it. */
    private static final Map<String, Need> NEEDS = new TreeMap<>(Map.ofEntries(
            Map.entry("GET /api/v1/plugins", Need.VIEWER),
            Map.entry("GET /api/v1/plugins/{type}", Need.VIEWER),
            Map.entry("POST /api/v1/plugins/{type}", Need.ADMIN),
            Map.entry("GET /api/v1/plugins/{type}/{name}", Need.VIEWER),
            Map.entry("PUT /api/v1/plugins/{type}/{name}", Need.ADMIN),
            Map.entry("PATCH /api/v1/plugins/{type}/{name}", Need.ADMIN),
            Map.entry("DELETE /api/v1/plugins/{type}/{name}", Need.ADMIN),
            Map.entry("GET /api/v1/plugins/{type}/{name}/environments", Need.VIEWER),
            Map.entry("GET /api/v1/plugins/{type}/{name}/environments/{environment}", Need.VIEWER),
            Map.entry("PUT /api/v1/plugins/{type}/{name}/environments/{environment}", Need.ADMIN),
            Map.entry("DELETE /api/v1/plugins/{type}/{name}/environments/{environment}", Need.ADMIN),
            Map.entry("GET /api/v1/plugins/extractors/{name}/streams", Need.VIEWER),
            Map.entry("POST /api/v1/plugins/extractors/{name}:discover", Need.OPERATOR),
            Map.entry("POST /api/v1/plugins/{type}/{name}:test", Need.OPERATOR),
            Map.entry("GET /api/v1/plugins/{type}/{name}/about", Need.OPERATOR),
            Map.entry("GET /api/v1/pipelines", Need.VIEWER),
            Map.entry("POST /api/v1/pipelines", Need.ADMIN),
            Map.entry("GET /api/v1/pipelines/{name}", Need.VIEWER),
            Map.entry("PUT /api/v1/pipelines/{name}", Need.ADMIN),
            Map.entry("PATCH /api/v1/pipelines/{name}", Need.ADMIN),
            Map.entry("DELETE /api/v1/pipelines/{name}", Need.ADMIN),
            Map.entry("GET /api/v1/pipelines/{name}/runs", Need.VIEWER),
            Map.entry("GET /api/v1/pipelines/{name}/schedule", Need.VIEWER),
            Map.entry("POST /api/v1/pipelines/{name}/pause", Need.OPERATOR),
            Map.entry("POST /api/v1/pipelines/{name}/resume", Need.OPERATOR),
            Map.entry("POST /api/v1/pipelines/{name}/runs", Need.OPERATOR),
            Map.entry("GET /api/v1/runs", Need.VIEWER),
            Map.entry("GET /api/v1/runs/{id}", Need.VIEWER),
            Map.entry("POST /api/v1/runs/{id}/cancel", Need.OPERATOR),
            Map.entry("GET /api/v1/runs/{id}/log", Need.VIEWER),
            Map.entry("GET /api/v1/states", Need.VIEWER),
            Map.entry("DELETE /api/v1/states", Need.ADMIN),
            Map.entry("GET /api/v1/states/{stateId}", Need.VIEWER),
            Map.entry("PUT /api/v1/states/{stateId}", Need.OPERATOR),
            Map.entry("POST /api/v1/states/{stateId}", Need.OPERATOR),
            Map.entry("DELETE /api/v1/states/{stateId}", Need.OPERATOR),
            Map.entry("GET /api/v1/states/{stateId}/history", Need.VIEWER),
            Map.entry("GET /api/v1/states/{stateId}/bookmarks/{stream}", Need.VIEWER),
            Map.entry("PUT /api/v1/states/{stateId}/bookmarks/{stream}", Need.OPERATOR),
            Map.entry("DELETE /api/v1/states/{stateId}/bookmarks/{stream}", Need.OPERATOR),
            Map.entry("GET /api/v1/states/{stateId}/bookmarks/{stream}/{key}", Need.VIEWER),
            Map.entry("PUT /api/v1/states/{stateId}/bookmarks/{stream}/{key}", Need.OPERATOR),
            Map.entry("DELETE /api/v1/states/{stateId}/bookmarks/{stream}/{key}", Need.OPERATOR),
            Map.entry("GET /api/v1/states:export", Need.VIEWER),
            Map.entry("GET /api/v1/pipelines:summary", Need.VIEWER),
            Map.entry("POST /api/v1/states:import", Need.ADMIN),
            Map.entry("POST /api/v1/states:import-directory", Need.ADMIN),
            Map.entry("POST /api/v1/states:export-directory", Need.ADMIN),
            Map.entry("GET /api/v1/audit", Need.ADMIN),
            Map.entry("POST /api/v1/projects:import", Need.ADMIN),
            Map.entry("POST /api/v1/projects/import", Need.ADMIN),
            Map.entry("GET /api/v1/projects/assessment", Need.VIEWER),
            Map.entry("GET /api/v1/projects/meltano.yml", Need.VIEWER),
            Map.entry("POST /api/v1/plugins/{type}/{name}:install", Need.ADMIN),
            Map.entry("GET /api/v1/plugins/{type}/{name}/installs", Need.VIEWER),
            Map.entry("GET /api/v1/plugins/{type}/{name}/installs/{id}", Need.VIEWER),
            Map.entry("GET /api/v1/events", Need.VIEWER),
            Map.entry("GET /api/v1/events/{id}", Need.VIEWER),
            Map.entry("GET /api/v1/events/{id}/deliveries", Need.ADMIN),
            Map.entry("GET /api/v1/pipelines/{name}/state-checks", Need.VIEWER),
            Map.entry("PUT /api/v1/pipelines/{name}/state-checks", Need.ADMIN),
            Map.entry("POST /api/v1/webhooks", Need.ADMIN),
            Map.entry("GET /api/v1/webhooks", Need.ADMIN),
            Map.entry("GET /api/v1/webhooks/{id}", Need.ADMIN),
            Map.entry("DELETE /api/v1/webhooks/{id}", Need.ADMIN),
            Map.entry("GET /api/v1/webhooks/{id}/deliveries", Need.ADMIN)));

    private static final String VIEWER = Tokens.of("test-viewer", Roles.VIEWER);
    private static final String OPERATOR = Tokens.of("test-operator", Roles.OPERATOR);

    /**
     * Every "METHOD path" under /api of the resource classes, with literal regex segments
     * ({@code states:import}) resolved. The console's pages (/ui, @PermitAll) are shells without
     * data; what they show comes from /api with the caller's token (UiPagesTest).
     */
    private static List<String> operations() throws Exception {
        Path root = Path.of("target/classes");
        List<String> ops = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root.resolve("io/tapline"))) {
            for (Path f : files.filter(x -> x.toString().endsWith(".class")).toList()) {
                String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> c = Class.forName(name, false, EndpointSecurityTest.class.getClassLoader());
                jakarta.ws.rs.Path base = c.getAnnotation(jakarta.ws.rs.Path.class);
                if (base == null) {
                    continue;
                }
                for (Method m : c.getDeclaredMethods()) {
                    String verb = verb(m);
                    if (verb == null) {
                        continue;
                    }
                    jakarta.ws.rs.Path sub = m.getAnnotation(jakarta.ws.rs.Path.class);
                    String path = join(base.value(), sub == null ? "" : sub.value());
                    if (path.startsWith("/api/")) {
                        ops.add(verb + " " + literal(path));
                    }
                }
            }
        }
        Collections.sort(ops);
        return ops;
    }

    private static String verb(Method m) {
        for (Annotation a : m.getAnnotations()) {
            jakarta.ws.rs.HttpMethod h = a.annotationType().getAnnotation(jakarta.ws.rs.HttpMethod.class);
            if (h != null) {
                return h.value();
            }
        }
        return null;
    }

    private static String join(String a, String b) {
        String p = ("/" + a + "/" + b).replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** {@code {collection: states:import}} becomes {@code states:import}; other templates stay. */
    private static String literal(String path) {
        Matcher m = Pattern.compile("\\{\\s*(\\w+)\\s*:\\s*([^}]+)}").matcher(path);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String regex = m.group(2).trim();
            m.appendReplacement(sb, Matcher.quoteReplacement(regex.matches("[A-Za-z0-9:_-]+") ? regex
                    : "{" + m.group(1) + "}"));
        }
        return m.appendTail(sb).toString();
    }

    /** Every "METHOD path" of the OpenAPI document under /api/ (regex segments folded to {@code {name}}). */
    private static Set<String> documented() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(Api.anonymous().accept("application/json")
                .get("/q/openapi?format=json").then().statusCode(200).extract().asString());
        Set<String> ops = new TreeSet<>();
        doc.get("paths").fields().forEachRemaining(p -> {
            if (!p.getKey().startsWith("/api/")) {
                return;
            }
            p.getValue().fieldNames().forEachRemaining(m -> {
                if (Set.of("get", "put", "post", "delete", "patch", "head", "options").contains(m)) {
                    // The state actions (one Java method) are documented as {stateId}:merge, :copy, ...
                    ops.add(m.toUpperCase() + " " + p.getKey().replaceAll("\\{stateId}:[a-z]+$", "{stateId}"));
                }
            });
        });
        return ops;
    }

    @Test
    void everyOperationHasARole() throws Exception {
        List<String> found = operations();
        assertTrue(found.size() >= NEEDS.size() - 5, "too few operations found in target/classes: " + found);
        Set<String> unknown = new TreeSet<>(found);
        unknown.removeAll(NEEDS.keySet());
        assertTrue(unknown.isEmpty(), "operations without a role in EndpointSecurityTest.NEEDS: " + unknown);
        Set<String> stale = new TreeSet<>(NEEDS.keySet());
        stale.removeAll(found);
        assertTrue(stale.isEmpty(), "NEEDS lists operations the API does not have: " + stale);
    }

    @Test
    void everyOperationOfTheOpenApiDocumentIsWalked() throws Exception {
        Set<String> folded = new TreeSet<>(operations());
        Set<String> missing = new TreeSet<>(documented());
        missing.removeAll(folded);
        assertTrue(missing.isEmpty(), "in the OpenAPI document but not found in the resource classes: " + missing);
    }

    @TestFactory
    Stream<DynamicTest> everyOperationChecksTheCallersRole() throws Exception {
        String stateId = "sec-walk-" + UUID.randomUUID();
        return operations().stream().filter(NEEDS::containsKey).map(op -> DynamicTest.dynamicTest(op, () -> {
            Need need = NEEDS.get(op);
            String method = op.substring(0, op.indexOf(' '));
            String path = concrete(op.substring(op.indexOf(' ') + 1), stateId);

            Response none = send(Api.anonymous(), method, path);
            problem(none.then(), 401, "unauthorized");
            assertTrue(none.getHeader("WWW-Authenticate").startsWith("Bearer"), op + ": WWW-Authenticate");

            check(op, Api.as(VIEWER), method, path, need == Need.VIEWER);
            check(op, Api.as(OPERATOR), method, path, need != Need.ADMIN);
            check(op, Api.as(Tokens.admin()), method, path, true);
        }));
    }

    private static void check(String op, RequestSpecification spec, String method, String path, boolean allowed) {
        Response r = send(spec, method, path);
        if (allowed) {
            assertNotEquals(401, r.statusCode(), op + ": " + r.asString());
            assertNotEquals(403, r.statusCode(), op + ": " + r.asString());
        } else {
            problem(r.then(), 403, "forbidden");
        }
    }

    /**
     * Sends a request that is harmless when allowed: unknown names, and a body that every write
     * rejects (an unknown field, or a state without singer_state).
     */
    private static Response send(RequestSpecification spec, String method, String path) {
        RequestSpecification s = spec.accept("application/json, text/plain, application/problem+json");
        if (!method.equals("GET") && !method.equals("DELETE")) {
            s = s.body("{\"notAField\": 1}");
        }
        return s.request(method, path);
    }

    private static String concrete(String template, String stateId) {
        return template.replace("{type}", "extractors")
                .replace("{name}", "sec-walk-none")
                .replace("{id}", UUID.randomUUID().toString())
                .replace("{stateId}", stateId)
                .replace("{stream}", "walk-stream")
                .replace("{key}", "walk-key")
                .replace("{environment}", "walk-env");
    }

    @Test
    void anExpiredTokenIs401() {
        problem(Api.as(Tokens.expired()).get("/api/v1/pipelines").then(), 401, "unauthorized")
                .header("WWW-Authenticate", equalTo("Bearer error=\"invalid_token\""));
    }

    @Test
    void aTokenSignedByAnotherKeyIs401() {
        problem(Api.as(Tokens.foreignKey()).get("/api/v1/pipelines").then(), 401, "unauthorized");
        problem(Api.as(Tokens.foreignKey()).body("{}").post("/api/v1/pipelines").then(), 401, "unauthorized");
    }

    @Test
    void aMalformedTokenIs401() {
        problem(Api.as("not-a-jwt").get("/api/v1/runs").then(), 401, "unauthorized");
    }

    @Test
    void aTokenWithoutRolesIs403() {
        problem(Api.as(Tokens.of("nobody")).get("/api/v1/runs").then(), 403, "forbidden");
    }

    @Test
    void healthMetricsAndOpenApiNeedNoToken() {
        for (String path : List.of("/q/health", "/q/health/live", "/q/health/ready", "/q/metrics", "/q/openapi",
                "/q/swagger-ui/")) {
            int status = Api.anonymous().accept("*/*").get(path).statusCode();
            assertEquals(200, status, path);
            // An invalid token does not close them either.
            assertEquals(200, Api.as("not-a-jwt").accept("*/*").get(path).statusCode(), path + " with a bad token");
        }
    }
}
