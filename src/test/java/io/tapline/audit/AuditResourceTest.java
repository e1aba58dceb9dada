package io.tapline.audit;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.support.Connectors;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.as;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class AuditResourceTest {

    @Test
    void pluginAndPipelineChangesAreAuditedWithFieldNamesOnly() {
        String tap = unique("tap-audit");
        json().header("X-Request-Id", "req-audit-1")
                .body(Map.of("name", tap, "executable", "tap-x", "config", Map.of("host", "h", "password", "pw-123"),
                        "sensitive", List.of("password")))
                .post("/api/v1/plugins/extractors").then().statusCode(201).header("X-Request-Id", "req-audit-1");
        json().body(Map.of("executable", "tap-y", "config", Map.of("host", "h2", "password", "********"),
                        "sensitive", List.of("password")))
                .put("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        String target = Connectors.pipeline(Map.of(), Map.of(), Map.of());
        String loader = json().get("/api/v1/pipelines/" + target).then().extract().path("loader");
        String pl = unique("pl-audit");
        json().body(Map.of("name", pl, "extractor", tap, "loader", loader)).post("/api/v1/pipelines").then().statusCode(201);
        json().body(Map.of("extractor", tap, "loader", loader, "env", Map.of("SECRET_ISH", "v"),
                "schedule", Map.of("interval", "@daily"))).put("/api/v1/pipelines/" + pl).then().statusCode(200);
        json().delete("/api/v1/pipelines/" + pl).then().statusCode(204);

        JsonPath plugin = json().queryParam("target", "extractors/" + tap).get("/api/v1/audit").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(List.of("plugin.update", "plugin.create"), plugin.getList("items.action"));
        assertEquals(Tokens.ADMIN_SUBJECT, plugin.getString("items[1].actor"));
        assertEquals("plugin", plugin.getString("items[1].targetType"));
        assertEquals("req-audit-1", plugin.getString("items[1].requestId"));
        assertEquals(java.util.Set.of("host", "password"),
                java.util.Set.copyOf(plugin.getList("items[1].details.config.added")));
        assertEquals(List.of("executable", "config"), plugin.getList("items[0].details.changed"));
        assertEquals(List.of("host"), plugin.getList("items[0].details.config.changed"));
        assertTrue(!plugin.prettify().contains("pw-123") && !plugin.prettify().contains("\"h2\""), plugin.prettify());

        JsonPath pipeline = json().queryParam("targetType", "pipeline").queryParam("target", pl)
                .get("/api/v1/audit").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("pipeline.delete", "pipeline.update", "pipeline.create"), pipeline.getList("items.action"));
        assertTrue(pipeline.getList("items[1].details.changed").containsAll(List.of("schedule", "env")),
                pipeline.prettify());
        assertEquals(List.of("SECRET_ISH"), pipeline.getList("items[1].details.env.added"));
    }

    @Test
    void stateEditsAndRunsAreAuditedWithTheCallersName() {
        String operator = Tokens.of("op-alice", "operator");
        String id = "audit-" + unique("s");
        String other = id + "-copy";
        String state = "{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}";
        as(operator).body(state).put("/api/v1/states/" + id).then().statusCode(200);
        as(operator).body(state).post("/api/v1/states/" + id + ":merge").then().statusCode(200);
        as(operator).body("2").put("/api/v1/states/" + id + "/bookmarks/s/v").then().statusCode(200);
        as(operator).delete("/api/v1/states/" + id + "/bookmarks/s/v").then().statusCode(200);
        as(operator).body(Map.of("to", other)).post("/api/v1/states/" + id + ":copy").then().statusCode(200);
        as(operator).body(Map.of("version", 1)).post("/api/v1/states/" + id + ":rollback").then().statusCode(200);
        as(operator).delete("/api/v1/states/" + other).then().statusCode(204);
        json().body("{\"" + other + "\": {\"completed\": {\"singer_state\": {}}, \"partial\": {}}}")
                .post("/api/v1/states:import").then().statusCode(200);
        as(operator).body(Map.of("to", other + "-moved")).post("/api/v1/states/" + other + ":move").then().statusCode(200);

        JsonPath a = json().queryParam("target", id).get("/api/v1/audit").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("state.rollback", "state.bookmark", "state.bookmark", "state.merge", "state.set"),
                a.getList("items.action"));
        assertEquals(List.of("op-alice"), a.getList("items.actor").stream().distinct().toList());
        assertEquals(1, a.getInt("items[0].details.toVersion"));
        assertEquals("delete", a.getString("items[1].details.bookmark"));
        assertEquals("v", a.getString("items[1].details.key"));
        JsonPath b = json().queryParam("target", other).get("/api/v1/audit").then().extract().jsonPath();
        assertEquals(List.of("state.move", "state.import", "state.clear", "state.copy"), b.getList("items.action"));
        assertEquals(Tokens.ADMIN_SUBJECT, b.getString("items[1].actor"));
        assertEquals(id, b.getString("items[3].details.from"));

        // Runs: trigger and cancel, by the operator.
        String p = Connectors.pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        String run = as(operator).body("{}").post("/api/v1/pipelines/" + p + "/runs").then().statusCode(202)
                .extract().path("id");
        as(operator).post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        Connectors.awaitEnd(run, Duration.ofSeconds(60));
        json().queryParam("target", p).get("/api/v1/audit").then()
                .body("items[0].action", equalTo("run.trigger")).body("items[0].actor", equalTo("op-alice"))
                .body("items[0].details.runId", equalTo(run));
        json().queryParam("target", run).get("/api/v1/audit").then()
                .body("items[0].action", equalTo("run.cancel")).body("items[0].actor", equalTo("op-alice"))
                .body("items[0].details.pipeline", equalTo(p));
        // The state history names the caller too.
        json().get("/api/v1/states/" + id + "/history").then().body("items[0].actor", equalTo("op-alice"));
    }

    @Test
    void filtersAndKeysetPaginationNewestFirst() {
        String actor = unique("pager");
        String token = Tokens.of(actor, "operator");
        String id = "audit-page-" + unique("s");
        OffsetDateTime start = OffsetDateTime.now().minusSeconds(1);
        for (int i = 1; i <= 5; i++) {
            as(token).body("{\"singer_state\": {\"n\": " + i + "}}").put("/api/v1/states/" + id).then().statusCode(200);
        }
        List<Integer> versions = new ArrayList<>();
        String cursor = null;
        do {
            var req = json().queryParam("actor", actor).queryParam("action", "state.").queryParam("limit", 2)
                    .queryParam("from", start.toString());
            if (cursor != null) {
                req.queryParam("cursor", cursor);
            }
            JsonPath page = req.get("/api/v1/audit").then().statusCode(200).extract().jsonPath();
            versions.addAll(page.getList("items.details.version", Integer.class));
            cursor = page.getString("nextCursor");
        } while (cursor != null);
        assertEquals(List.of(5, 4, 3, 2, 1), versions);
        json().queryParam("actor", actor).queryParam("to", start.toString()).get("/api/v1/audit").then()
                .body("items.size()", equalTo(0));
        json().queryParam("actor", actor).queryParam("action", "state.set").get("/api/v1/audit").then()
                .body("items.size()", equalTo(5)).body("items.at", hasItems(notNullValue()));
        problem(json().queryParam("cursor", "garbage").get("/api/v1/audit").then(), 400, "validation");
        problem(json().queryParam("from", "yesterday").get("/api/v1/audit").then(), 400, "validation");
        problem(as(token).get("/api/v1/audit").then(), 403, "forbidden");
    }
}
