package io.tapline.pipeline;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Api;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.hasItems;

@QuarkusTest
class PipelineResourceTest {

    String tap;
    String target;

    @BeforeEach
    void plugins() {
        tap = Api.plugin("extractors", unique("tap-gitlab"), "tap-gitlab");
        target = Api.plugin("loaders", unique("target-postgres"), "target-postgres");
    }

    private String body(String name, String extra) {
        return "{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\"%s}".formatted(name, tap, target,
                extra.isEmpty() ? "" : "," + extra);
    }

    @Test
    void stateIdIsDerivedWithMeltanosRule() {
        String name = unique("p");
        json().body(body(name, "")).post("/api/v1/pipelines").then().statusCode(201)
                .header("Location", endsWith("/api/v1/pipelines/" + name))
                .header("ETag", "\"0\"")
                .body("stateId", equalTo("dev:" + tap + "-to-" + target))
                .body("stateIdDerived", equalTo(true))
                .body("environment", equalTo("dev"))
                .body("schedule.interval", equalTo("@manual"))
                .body("schedule.timezone", equalTo("UTC"))
                .body("stateStrategy", equalTo("auto"))
                .body("stateCommitPolicy", equalTo("CHECKPOINT"))
                .body("retry.maxAttempts", equalTo(1));

        String withSuffix = unique("p");
        json().body(body(withSuffix, "\"environment\":\"prod\",\"stateIdSuffix\":\"nightly\""))
                .post("/api/v1/pipelines").then().statusCode(201)
                .body("stateId", equalTo("prod:" + tap + "-to-" + target + ":nightly"));
    }

    @Test
    void mappersAreNotPartOfTheStateId() {
        String mapper = Api.plugin("mappers", unique("hide-secrets"), "meltano-map-transformer");
        String name = unique("p");
        json().body(body(name, "\"environment\":\"staging\",\"mappers\":[\"%s\"]".formatted(mapper)))
                .post("/api/v1/pipelines").then().statusCode(201)
                .body("mappers", hasItems(mapper))
                .body("stateId", equalTo("staging:" + tap + "-to-" + target));
    }

    @Test
    void pipelinesMayShareAStateIdAndEachNamesTheOthers() {
        String first = unique("p");
        json().body(body(first, "")).post("/api/v1/pipelines").then().statusCode(201).body("warnings", hasSize(0));
        String second = unique("p");
        json().body(body(second, "")).post("/api/v1/pipelines").then().statusCode(201)
                .body("warnings[0]", containsString(first));
        // an explicit state ID of another pipeline is shared too
        String third = unique("p");
        json().body(body(third, "\"stateId\":\"dev:%s-to-%s\"".formatted(tap, target)))
                .post("/api/v1/pipelines").then().statusCode(201)
                .body("warnings[0]", containsString(first)).body("warnings[0]", containsString(second));
        json().get("/api/v1/pipelines/" + first).then().statusCode(200)
                .body("warnings[0]", containsString(third));
        // a suffix keeps them apart
        json().body(body(unique("p"), "\"stateIdSuffix\":\"second\"")).post("/api/v1/pipelines").then().statusCode(201)
                .body("warnings", hasSize(0));
    }

    @Test
    void updatingAPipelineKeepsItsOwnStateIdWithoutConflict() {
        String name = unique("p");
        json().body(body(name, "")).post("/api/v1/pipelines").then().statusCode(201);
        json().header("If-Match", "\"0\"").body(body(name, "\"schedule\":{\"interval\":\"@daily\",\"timezone\":\"Europe/Berlin\"}"))
                .put("/api/v1/pipelines/" + name).then().statusCode(200)
                .header("ETag", "\"1\"")
                .body("schedule.interval", equalTo("@daily"))
                .body("schedule.timezone", equalTo("Europe/Berlin"));
        problem(json().header("If-Match", "\"0\"").body(body(name, "")).put("/api/v1/pipelines/" + name).then(),
                412, "precondition-failed");
        problem(json().header("If-Match", "\"0\"").delete("/api/v1/pipelines/" + name).then(), 412, "precondition-failed");
        json().header("If-Match", "\"1\"").delete("/api/v1/pipelines/" + name).then().statusCode(204);
    }

    @Test
    void referencesToMissingOrWrongTypePluginsAre422() {
        problem(json().body("{\"name\":\"%s\",\"extractor\":\"nope\",\"loader\":\"%s\"}".formatted(unique("p"), target))
                .post("/api/v1/pipelines").then(), 422, "unprocessable")
                .body("errors[0].field", equalTo("extractor"));
        // a loader named as the extractor: wrong type
        problem(json().body("{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\"}".formatted(unique("p"), target, target))
                .post("/api/v1/pipelines").then(), 422, "unprocessable")
                .body("errors[0].field", equalTo("extractor"))
                .body("errors[0].message", containsString("loaders"));
        problem(json().body(body(unique("p"), "\"mappers\":[\"no-mapper\"]")).post("/api/v1/pipelines").then(),
                422, "unprocessable").body("errors[0].field", equalTo("mappers[0]"));
        problem(json().body(body(unique("p"), "\"transform\":{\"plugin\":\"no-dbt\",\"args\":[\"run\"]}"))
                .post("/api/v1/pipelines").then(), 422, "unprocessable").body("errors[0].field", equalTo("transform.plugin"));
    }

    @Test
    void transformRefersToAUtilityOrTransformer() {
        String dbt = Api.plugin("utilities", unique("dbt-postgres"), "dbt");
        json().body(body(unique("p"), "\"stateIdSuffix\":\"t\",\"transform\":{\"plugin\":\"%s\",\"args\":[\"run\",\"--select\",\"x\"]}"
                        .formatted(dbt)))
                .post("/api/v1/pipelines").then().statusCode(201)
                .body("transform.plugin", equalTo(dbt))
                .body("transform.args", equalTo(java.util.List.of("run", "--select", "x")));
    }

    @Test
    void invalidFieldsAre400AndNameThem() {
        record Case(String extra, String field) { }
        for (Case c : new Case[] {
                new Case("\"environment\":\"de:v\"", "environment"),
                new Case("\"stateIdSuffix\":\"a:b\"", "stateIdSuffix"),
                new Case("\"stateIdSuffix\":\"a/b\"", "stateIdSuffix"),
                new Case("\"stateId\":\"../escape\"", "stateId"),
                new Case("\"stateId\":\"a/b\"", "stateId"),
                new Case("\"stateId\":\"\"", "stateId"),
                new Case("\"stateId\":\"" + "x".repeat(901) + "\"", "stateId"),
                new Case("\"schedule\":{\"interval\":\"61 * * * *\"}", "schedule.interval"),
                new Case("\"schedule\":{\"interval\":\"@fortnightly\"}", "schedule.interval"),
                new Case("\"schedule\":{\"interval\":\"* * *\"}", "schedule.interval"),
                new Case("\"schedule\":{\"timezone\":\"Mars/Olympus\"}", "schedule.timezone"),
                new Case("\"timeoutSeconds\":0", "timeoutSeconds"),
                new Case("\"retry\":{\"maxAttempts\":0}", "retry.maxAttempts"),
                new Case("\"retry\":{\"backoffSeconds\":100,\"maxBackoffSeconds\":10}", "retry.maxBackoffSeconds"),
                new Case("\"env\":{\"A B\":\"x\"}", "env.A B"),
        }) {
            problem(json().body(body(unique("p"), c.extra())).post("/api/v1/pipelines").then(), 400, "validation")
                    .body("errors[0].field", equalTo(c.field()));
        }
        problem(json().body(body(unique("p"), "\"stateStrategy\":\"sometimes\"")).post("/api/v1/pipelines").then(),
                400, "validation").body("errors[0].field", equalTo("stateStrategy"));
        problem(json().body(body(unique("p"), "\"stateCommitPolicy\":\"never\"")).post("/api/v1/pipelines").then(),
                400, "validation").body("errors[0].field", equalTo("stateCommitPolicy"));
        problem(json().body(Map.of("name", "p-x")).post("/api/v1/pipelines").then(), 400, "validation");
    }

    @Test
    void meltanoIntervalsAreAccepted() {
        int i = 0;
        for (String interval : new String[] {"@hourly", "@daily", "@weekly", "@monthly", "@yearly", "@annually",
                "@midnight", "@once", "@manual", "@none", "*/15 * * * *", "0 6 * * mon-fri", "0 0 1 jan,jul *",
                "0 3 * * 7", "PT30S"}) {
            json().body(body(unique("p"), "\"stateIdSuffix\":\"s%d\",\"schedule\":{\"interval\":\"%s\"}".formatted(i++, interval)))
                    .post("/api/v1/pipelines").then().statusCode(201).body("schedule.interval", equalTo(interval));
        }
    }

    @Test
    void pipelinePagesWalkNewestFirst() {
        for (int i = 0; i < 3; i++) {
            json().body(body(unique("pg"), "\"stateIdSuffix\":\"pg%d\"".formatted(i))).post("/api/v1/pipelines").then().statusCode(201);
        }
        var first = json().queryParam("limit", 2).get("/api/v1/pipelines");
        first.then().statusCode(200).body("items.size()", equalTo(2));
        String cursor = first.jsonPath().getString("nextCursor");
        json().queryParam("limit", 2).queryParam("cursor", cursor).get("/api/v1/pipelines").then().statusCode(200);
        problem(json().get("/api/v1/pipelines/nope").then(), 404, "not-found");
    }
}
