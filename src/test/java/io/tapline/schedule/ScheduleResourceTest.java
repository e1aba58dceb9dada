package io.tapline.schedule;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /schedule}, {@code /pause}, {@code /resume}, and the schedule fields of pipeline responses. */
@QuarkusTest
class ScheduleResourceTest {

    @Inject
    PipelineChangedRecorder changes;

    Fixtures.Plugins plugins;

    @BeforeEach
    void plugins() {
        plugins = Fixtures.Plugins.create();
    }

    @Test
    void scheduleListsTheNextFireTimesInUtcAndInThePipelinesZone() {
        String name = unique("berlin");
        plugins.pipeline(name, "\"interval\":\"30 2 * * *\",\"timezone\":\"Europe/Berlin\"");
        JsonPath body = json().queryParam("next", 3).get("/api/v1/pipelines/" + name + "/schedule").then()
                .statusCode(200)
                .body("interval", equalTo("30 2 * * *"))
                .body("timezone", equalTo("Europe/Berlin"))
                .body("enabled", equalTo(true))
                .body("catchUp", equalTo("NONE"))
                .body("$", hasKey("pauseAfterFailures"))
                .body("next.size()", equalTo(3))
                .extract().jsonPath();
        Instant previous = Instant.now();
        for (Map<String, String> t : body.<Map<String, String>>getList("next")) {
            Instant utc = Instant.parse(t.get("utc"));
            assertTrue(t.get("utc").endsWith("Z") && utc.isAfter(previous), t.toString());
            ZonedDateTime local = ZonedDateTime.parse(t.get("local"));
            assertEquals(utc, local.toInstant());
            assertTrue(t.get("local").endsWith("[Europe/Berlin]"), t.get("local"));
            assertTrue(List.of("02:30", "03:00").contains(local.toLocalTime().toString()), t.get("local"));
            previous = utc;
        }
        json().get("/api/v1/pipelines/" + name + "/schedule").then().statusCode(200).body("next.size()", equalTo(5));
        json().queryParam("next", 100).get("/api/v1/pipelines/" + name + "/schedule").then().statusCode(200)
                .body("next.size()", equalTo(100));
        for (String bad : new String[] {"0", "101", "x", "-1"}) {
            problem(json().queryParam("next", bad).get("/api/v1/pipelines/" + name + "/schedule").then(), 400,
                    "validation").body("errors[0].field", equalTo("next"));
        }
        problem(json().get("/api/v1/pipelines/" + unique("nope") + "/schedule").then(), 404, "not-found");
    }

    @Test
    void pauseAndResumeSetTheFlagAndReturnThePipeline() {
        String name = unique("pause");
        plugins.pipeline(name, "\"interval\":\"PT30S\"");
        json().get("/api/v1/pipelines/" + name).then().statusCode(200).body("nextRunAt", notNullValue());
        long before = changes.count(name);
        json().post("/api/v1/pipelines/" + name + "/pause").then().statusCode(200)
                .header("ETag", "\"1\"")
                .body("name", equalTo(name))
                .body("schedule.enabled", equalTo(false))
                .body("$", hasKey("nextRunAt"))
                .body("nextRunAt", nullValue());
        json().post("/api/v1/pipelines/" + name + "/pause").then().statusCode(200).header("ETag", "\"1\"");
        json().get("/api/v1/pipelines/" + name + "/schedule").then().statusCode(200)
                .body("enabled", equalTo(false)).body("next.size()", equalTo(0));
        json().post("/api/v1/pipelines/" + name + "/resume").then().statusCode(200)
                .header("ETag", "\"2\"")
                .body("schedule.enabled", equalTo(true))
                .body("nextRunAt", notNullValue());
        assertEquals(before + 2, changes.count(name), "one event per change, none for the repeated pause");
        problem(json().post("/api/v1/pipelines/" + unique("nope") + "/pause").then(), 404, "not-found");
    }

    @Test
    void nextRunAtIsTheNextTickAndNullWhenManual() {
        String periodic = unique("periodic");
        plugins.pipeline(periodic, "\"interval\":\"PT1H\"");
        String at = json().get("/api/v1/pipelines/" + periodic).then().statusCode(200).extract().path("nextRunAt");
        Instant next = ZonedDateTime.parse(at).toInstant();
        assertEquals(0, next.getEpochSecond() % 3600);
        assertTrue(next.isAfter(Instant.now()) && next.isBefore(Instant.now().plusSeconds(3601)));

        String manual = unique("manual");
        plugins.pipeline(manual, "\"interval\":\"@manual\"");
        json().get("/api/v1/pipelines/" + manual).then().statusCode(200)
                .body("$", hasKey("nextRunAt")).body("nextRunAt", nullValue())
                .body("$", hasKey("lastRun")).body("lastRun", nullValue());
        json().queryParam("limit", 500).get("/api/v1/pipelines").then().statusCode(200)
                .body("items.find { it.name == '%s' }.nextRunAt".formatted(periodic), equalTo(at));
    }

    @Test
    void lastRunIsTheNewestRunThatWasNotASkippedTick() {
        String name = unique("last");
        long id = plugins.pipeline(name, "\"interval\":\"@manual\"");
        UUID done = Fixtures.run(id, "SUCCEEDED", 1);
        Fixtures.run(id, "SKIPPED", 1);
        json().get("/api/v1/pipelines/" + name).then().statusCode(200)
                .body("lastRun.id", equalTo(done.toString()))
                .body("lastRun.status", equalTo("SUCCEEDED"))
                .body("lastRun.endedAt", notNullValue());
        UUID running = Fixtures.run(id, "RUNNING", 1);
        json().get("/api/v1/pipelines/" + name).then().statusCode(200)
                .body("lastRun.id", equalTo(running.toString()))
                .body("lastRun.status", equalTo("RUNNING"))
                .body("lastRun", hasKey("endedAt"))
                .body("lastRun.endedAt", nullValue());
        json().queryParam("limit", 500).get("/api/v1/pipelines").then().statusCode(200)
                .body("items.find { it.name == '%s' }.lastRun.id".formatted(name), equalTo(running.toString()));
    }

    @Test
    void schedulePoliciesAreStoredAndValidated() {
        String name = unique("policy");
        plugins.pipeline(name, "\"interval\":\"0 * * * *\",\"catchUp\":\"ONE\",\"pauseAfterFailures\":3");
        json().get("/api/v1/pipelines/" + name).then().statusCode(200)
                .body("schedule.catchUp", equalTo("ONE"))
                .body("schedule.pauseAfterFailures", equalTo(3));
        json().get("/api/v1/pipelines/" + name + "/schedule").then().statusCode(200)
                .body("catchUp", equalTo("ONE")).body("pauseAfterFailures", equalTo(3));
        String body = "{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\",\"stateIdSuffix\":\"%s\",\"schedule\":{%s}}";
        for (String bad : new String[] {"\"pauseAfterFailures\":0", "\"pauseAfterFailures\":1001"}) {
            String n = unique("bad");
            problem(json().body(body.formatted(n, plugins.tap(), plugins.target(), n, bad)).post("/api/v1/pipelines").then(),
                    400, "validation").body("errors[0].field", equalTo("schedule.pauseAfterFailures"));
        }
        String n = unique("bad");
        problem(json().body(body.formatted(n, plugins.tap(), plugins.target(), n, "\"catchUp\":\"ALL\""))
                .post("/api/v1/pipelines").then(), 400, "malformed-body")
                .body("errors[0].field", equalTo("schedule.catchUp"))
                .body("detail", containsString("NONE, ONE"));
        for (String cron : new String[] {"0 0 L * ?", "0 0 ? * fri-mon", "*/10 9-17 * JAN-MAR 1-5"}) {
            String ok = unique("cron");
            json().body(body.formatted(ok, plugins.tap(), plugins.target(), ok, "\"interval\":\"" + cron + "\""))
                    .post("/api/v1/pipelines").then().statusCode(201).body("nextRunAt", notNullValue());
        }
        String z = unique("zone");
        problem(json().body(body.formatted(z, plugins.tap(), plugins.target(), z,
                        "\"interval\":\"@daily\",\"timezone\":\"Europe/Berlinn\"")).post("/api/v1/pipelines").then(),
                400, "validation").body("errors[0].field", equalTo("schedule.timezone"))
                .body("errors[0].message", containsString("Europe/Berlinn"));
        problem(json().body(body.formatted(z, plugins.tap(), plugins.target(), z, "\"interval\":\"0 0 * * 5L\""))
                .post("/api/v1/pipelines").then(), 400, "validation")
                .body("errors[0].field", equalTo("schedule.interval"))
                .body("errors[0].message", containsString("0 0 * * 5L"));
    }

    @Test
    void changesAreAnnouncedAfterCommitOnly() {
        String name = unique("events");
        long id = plugins.pipeline(name, "\"interval\":\"@daily\"");
        assertEquals(1, changes.count(name));
        assertEquals(List.of(id), changes.ids(name));
        json().header("If-Match", "\"0\"").body("{\"extractor\":\"%s\",\"loader\":\"%s\",\"stateIdSuffix\":\"%s\",\"schedule\":{\"interval\":\"@hourly\"}}"
                .formatted(plugins.tap(), plugins.target(), name)).put("/api/v1/pipelines/" + name).then().statusCode(200);
        assertEquals(2, changes.count(name));
        problem(json().header("If-Match", "\"0\"").body("{\"extractor\":\"%s\",\"loader\":\"%s\"}"
                .formatted(plugins.tap(), plugins.target())).put("/api/v1/pipelines/" + name).then(), 412, "precondition-failed");
        problem(json().body("{\"extractor\":\"%s\",\"loader\":\"%s\",\"stateIdSuffix\":\"%s\",\"schedule\":{\"interval\":\"61 * * * *\"}}"
                .formatted(plugins.tap(), plugins.target(), name)).put("/api/v1/pipelines/" + name).then(), 400, "validation");
        assertEquals(2, changes.count(name), "failed changes announce nothing");
        json().header("If-Match", "\"1\"").delete("/api/v1/pipelines/" + name).then().statusCode(204);
        assertEquals(3, changes.count(name));
    }
}
