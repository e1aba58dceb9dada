package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tapline.support.NoRunnerProfile;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.plugin;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Runs say who triggered and who cancelled them; writes answer with the timestamps reads show. */
@QuarkusTest
@TestProfile(NoRunnerProfile.class)
class RunActorsTest {

    @Test
    void aRunRecordsWhoTriggeredAndWhoCancelledIt() {
        String tap = plugin("extractors", unique("tap-ra"), "tap-x");
        String target = plugin("loaders", unique("target-ra"), "target-x");
        String name = unique("ra");
        json().body("{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\"}".formatted(name, tap, target))
                .post("/api/v1/pipelines").then().statusCode(201);
        String id = json().body("{}").post("/api/v1/pipelines/" + name + "/runs").then().statusCode(202)
                .body("createdBy", equalTo(Tokens.ADMIN_SUBJECT))
                .body("cancelledBy", nullValue())
                .extract().path("id");
        json().post("/api/v1/runs/" + id + "/cancel").then().statusCode(202)
                .body("status", equalTo("CANCELLED"))
                .body("cancelledBy", equalTo(Tokens.ADMIN_SUBJECT));
        json().get("/api/v1/runs/" + id).then().statusCode(200)
                .body("createdBy", equalTo(Tokens.ADMIN_SUBJECT))
                .body("cancelledBy", equalTo(Tokens.ADMIN_SUBJECT));
    }

    @Test
    void postAndGetShowTheSameTimestamps() {
        String name = unique("tap-ts");
        String created = json().body("{\"name\":\"" + name + "\",\"executable\":\"tap-x\"}")
                .post("/api/v1/plugins/extractors").then().statusCode(201).extract().path("createdAt");
        String read = json().get("/api/v1/plugins/extractors/" + name).then().statusCode(200).extract().path("createdAt");
        assertEquals(read, created);
        String tap = plugin("extractors", unique("tap-ts"), "tap-x");
        String target = plugin("loaders", unique("target-ts"), "target-x");
        String p = unique("ts");
        String pCreated = json().body("{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\"}".formatted(p, tap, target))
                .post("/api/v1/pipelines").then().statusCode(201).extract().path("updatedAt");
        assertEquals(json().get("/api/v1/pipelines/" + p).then().extract().path("updatedAt"), pCreated);
    }
}
