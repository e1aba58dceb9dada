package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.support.Connectors;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.as;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 25 point 6: the console's pipelines page sent one history request per pipeline (up to 200
 * every 15 s per tab); {@code GET /api/v1/pipelines:summary} answers a page of pipelines with their
 * recent runs in one request.
 */
@QuarkusTest
class PipelineSummaryTest {

    private static final Duration RUN = Duration.ofSeconds(120);

    private static Map<String, Object> item(JsonPath page, String pipeline) {
        List<Map<String, Object>> items = page.getList("items");
        return items.stream().filter(i -> pipeline.equals(((Map<?, ?>) i.get("pipeline")).get("name")))
                .findFirst().orElseThrow(() -> new AssertionError(pipeline + " not in " + items));
    }

    @Test
    void aPageOfPipelinesComesWithEachOnesRecentRunsNewestFirst() {
        String pipeline = Connectors.pipeline(Map.of("records", 3, "state_every", 1), Map.of(), Map.of());
        String idle = Connectors.pipeline(Map.of("records", 1), Map.of(), Map.of());
        String first = Connectors.trigger(pipeline, Map.of());
        Connectors.awaitEnd(first, RUN).then().body("status", equalTo("SUCCEEDED"));
        String second = Connectors.trigger(pipeline, Map.of());
        Connectors.awaitEnd(second, RUN).then().body("status", equalTo("SUCCEEDED"));

        JsonPath page = as(Tokens.of("test-viewer", "viewer")).get("/api/v1/pipelines:summary?limit=500")
                .then().statusCode(200).extract().jsonPath();
        Map<String, Object> it = item(page, pipeline);
        Map<?, ?> p = (Map<?, ?>) it.get("pipeline");
        assertEquals(second, ((Map<?, ?>) p.get("lastRun")).get("id"), "lastRun as the pipeline list gives it");
        List<Map<String, Object>> runs = (List<Map<String, Object>>) it.get("recentRuns");
        assertEquals(List.of(second, first), runs.stream().map(r -> r.get("id")).toList());
        assertEquals("SUCCEEDED", runs.get(0).get("status"));
        assertEquals(3, ((Number) runs.get(0).get("recordsTotal")).intValue());
        assertNotNull(runs.get(0).get("durationMs"));
        assertEquals("API", runs.get(0).get("trigger"));
        assertEquals(List.of(), item(page, idle).get("recentRuns"));

        JsonPath one = json().get("/api/v1/pipelines:summary?limit=500&recent=1").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(1, ((List<?>) item(one, pipeline).get("recentRuns")).size());
        JsonPath none = json().get("/api/v1/pipelines:summary?limit=500&recent=0").then().statusCode(200)
                .extract().jsonPath();
        assertTrue(((List<?>) item(none, pipeline).get("recentRuns")).isEmpty());
    }

    @Test
    void badParametersAreRefusedWithTheirName() {
        Connectors.pipeline(Map.of("records", 1), Map.of(), Map.of());
        problem(json().get("/api/v1/pipelines:summary?recent=51").then(), 400, "validation")
                .body("detail", containsString("recent"));
        problem(json().get("/api/v1/pipelines:summary?recent=x").then(), 400, "validation")
                .body("detail", containsString("recent"));
        problem(json().get("/api/v1/pipelines:summary?limit=0").then(), 400, "validation")
                .body("detail", containsString("limit"));
        json().get("/api/v1/pipelines:summary?limit=1").then().statusCode(200)
                .body("items.size()", equalTo(1));
    }
}
