package io.tapline.pipeline;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.plugin;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

/** {@code PATCH /api/v1/pipelines/{name}} with a JSON Merge Patch (RFC 7396), beside what PUT does. */
@QuarkusTest
class PipelinePatchTest {

    private static final String MERGE_PATCH = "application/merge-patch+json";

    private String tap;
    private String target;

    private String create() {
        tap = plugin("extractors", unique("tap-pp"), "tap-x");
        target = plugin("loaders", unique("target-pp"), "target-x");
        String name = unique("pp");
        json().body("""
                {"name":"%s","extractor":"%s","loader":"%s","environment":"dev","timeoutSeconds":3600,
                 "schedule":{"interval":"@daily","timezone":"Europe/Berlin"},"retry":{"maxAttempts":3}}"""
                .formatted(name, tap, target)).post("/api/v1/pipelines").then().statusCode(201);
        return name;
    }

    @Test
    void patchKeepsEveryFieldItDoesNotName() {
        String name = create();
        json().contentType(MERGE_PATCH).header("If-Match", "\"0\"").body("{\"schedule\":{\"enabled\":false}}")
                .patch("/api/v1/pipelines/" + name)
                .then().statusCode(200).header("ETag", "\"1\"")
                .body("timeoutSeconds", equalTo(3600))
                .body("schedule.interval", equalTo("@daily"))
                .body("schedule.timezone", equalTo("Europe/Berlin"))
                .body("schedule.enabled", equalTo(false))
                .body("retry.maxAttempts", equalTo(3))
                .body("stateId", equalTo("dev:" + tap + "-to-" + target))
                .body("stateIdDerived", equalTo(true));
    }

    @Test
    void aDerivedStateIdFollowsThePatchedEnvironmentAndNullRemovesTheTimeout() {
        String name = create();
        json().contentType(MERGE_PATCH).body("{\"environment\":\"prod\",\"timeoutSeconds\":null}")
                .patch("/api/v1/pipelines/" + name)
                .then().statusCode(200)
                .body("stateId", equalTo("prod:" + tap + "-to-" + target))
                .body("stateIdDerived", equalTo(true))
                .body("timeoutSeconds", nullValue());
    }

    @Test
    void putReplacesTheWholePipeline() {
        String name = create();
        json().body("{\"extractor\":\"%s\",\"loader\":\"%s\"}".formatted(tap, target))
                .put("/api/v1/pipelines/" + name)
                .then().statusCode(200)
                .body("timeoutSeconds", nullValue())
                .body("schedule.interval", equalTo("@manual"))
                .body("retry.maxAttempts", equalTo(1));
    }

    @Test
    void patchHonoursIfMatchAndValidatesLikePut() {
        String name = create();
        problem(json().contentType(MERGE_PATCH).header("If-Match", "\"5\"").body("{\"timeoutSeconds\":60}")
                .patch("/api/v1/pipelines/" + name).then(), 412, "precondition-failed");
        problem(json().contentType(MERGE_PATCH).body("{\"timeoutSeconds\":0}")
                .patch("/api/v1/pipelines/" + name).then(), 400, "validation")
                .body("errors[0].field", equalTo("timeoutSeconds"));
        problem(json().contentType(MERGE_PATCH).body("{\"loader\":\"no-such-loader\"}")
                .patch("/api/v1/pipelines/" + name).then(), 422, "unprocessable");
        problem(json().contentType(MERGE_PATCH).body("{\"nextRunAt\":\"2030-01-01T00:00:00Z\"}")
                .patch("/api/v1/pipelines/" + name).then(), 400, "validation");
        problem(json().contentType(MERGE_PATCH).body("{\"colour\":\"blue\"}")
                .patch("/api/v1/pipelines/" + name).then(), 400, "malformed-body");
        problem(json().contentType(MERGE_PATCH).body("{}")
                .patch("/api/v1/pipelines/" + unique("missing")).then(), 404, "not-found");
        json().get("/api/v1/pipelines/" + name).then().statusCode(200).header("ETag", "\"0\"")
                .body("timeoutSeconds", equalTo(3600));
    }
}
