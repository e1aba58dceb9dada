package io.tapline.catalog;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.catalog.CatalogCacheTest.TAP;
import static io.tapline.catalog.CatalogCacheTest.discoveries;
import static io.tapline.catalog.CatalogCacheTest.extractor;
import static io.tapline.catalog.CatalogCacheTest.pipeline;
import static io.tapline.catalog.CatalogCacheTest.users;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /streams}, {@code :discover}, {@code :test} and {@code /about} with real test connectors. */
@QuarkusTest
class CatalogEndpointsTest {

    private static Path countFile() throws IOException {
        Path count = Files.createTempFile("discover-count", ".txt");
        Files.delete(count);
        return count;
    }

    private static void noProcessLeft(Path pids) throws IOException {
        List<String> lines = Files.readAllLines(pids);
        assertFalse(lines.isEmpty(), "the connector wrote its pid");
        for (String l : lines) {
            long pid = Long.parseLong(l.trim());
            await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        }
    }

    private static void patch(String tap, Map<String, Object> body) {
        json().contentType("application/merge-patch+json").body(body).patch("/api/v1/plugins/extractors/" + tap)
                .then().statusCode(200);
    }

    @Test
    void streamsShowWhatSelectAndMetadataSelectAndARunGetsExactlyThat() throws Exception {
        Path count = countFile();
        String tap = extractor(Map.of("count_file", count.toString(), "file", users("ada").toString()),
                List.of("catalog", "discover"), List.of());
        problem(json().get("/api/v1/plugins/extractors/" + tap + "/streams").then(), 409, "no-catalog");
        json().post("/api/v1/plugins/extractors/" + tap + ":discover").then().statusCode(200)
                .body("catalogSource", equalTo("cache")).body("current", equalTo(true))
                .body("streams.tapStreamId", equalTo(List.of("users", "orders")))
                .body("streams[0].selected", equalTo(true))
                .body("streams[0].keyProperties", equalTo(List.of("id")))
                .body("streams[0].replicationKeys", equalTo(List.of("updated_at")))
                .body("streams[0].replicationMethods", equalTo(List.of("FULL_TABLE", "INCREMENTAL")))
                .body("streams[1].replicationMethods", equalTo(List.of("FULL_TABLE")))
                .body("streams[1].replicationMethod", equalTo("FULL_TABLE"))
                .body("streams[0].properties.name", equalTo(List.of("id", "name", "email", "updated_at")))
                .body("streams[0].properties[0].inclusion", equalTo("automatic"));
        assertEquals(1, discoveries(count));

        patch(tap, Map.of("select", List.of("users.name", "!users.email"),
                "metadata", Map.of("users", Map.of("replication-method", "INCREMENTAL", "replication-key", "updated_at"))));
        JsonPath s = json().get("/api/v1/plugins/extractors/" + tap + "/streams").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(List.of(true, false), s.getList("streams.selected"));
        assertEquals(List.of(true, true, false, true), s.getList("streams[0].properties.selected"),
                "id and updated_at are automatic, name is selected, email excluded");
        assertEquals("INCREMENTAL", s.getString("streams[0].replicationMethod"));
        assertEquals(1, discoveries(count), "streams applies the rules to the cached catalog, no discovery");

        // a run uses the catalog :discover stored, and the tap gets what the list says
        String run = trigger(pipeline(tap), Map.of());
        awaitEnd(run, Duration.ofSeconds(60)).then().body("status", equalTo("SUCCEEDED"))
                .body("catalogSource", equalTo("cache"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("STREAMS [\"users\"]"), log);
        assertTrue(log.contains("SELECTED [\"id\", \"name\", \"updated_at\"]"), log);
        assertEquals(1, discoveries(count));

        // a config change: the list still shows the last catalog, marked not current
        patch(tap, Map.of("config", Map.of("file", users("bob").toString())));
        json().get("/api/v1/plugins/extractors/" + tap + "/streams").then().statusCode(200)
                .body("current", equalTo(false));
    }

    @Test
    void aHangingDiscoverIsStoppedAtItsLimitUnderDiscoverAndTest() throws Exception {
        Path pids = Files.createTempFile("probe-pids", ".txt");
        String tap = extractor(Map.of("discover", "hang", "pid_file", pids.toString()), List.of("catalog", "discover"),
                List.of());
        long t0 = System.nanoTime();
        problem(json().post("/api/v1/plugins/extractors/" + tap + ":discover?timeoutSeconds=2").then(), 502,
                "connector-failed").body("detail", containsString("did not finish within 2 s"))
                .body("detail", containsString("DISCOVERING"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 2000 + 8000, "answered " + ms + " ms after the call");
        noProcessLeft(pids);
        Files.writeString(pids, "");
        json().post("/api/v1/plugins/extractors/" + tap + ":test?timeoutSeconds=2").then().statusCode(200)
                .body("ok", equalTo(false)).body("message", containsString("did not finish within 2 s"));
        noProcessLeft(pids);
    }

    @Test
    void testPassesAtTheFirstRecordAndFailsWithTheConnectorsOwnMessage() throws Exception {
        Path pids = Files.createTempFile("probe-pids", ".txt");
        Path count = countFile();
        String good = extractor(Map.of("count_file", count.toString(), "file", users("ada", "bob").toString(),
                "hang_after", true, "pid_file", pids.toString()), List.of("catalog", "discover", "state"), List.of());
        json().post("/api/v1/plugins/extractors/" + good + ":test").then().log().ifValidationFails().statusCode(200)
                .body("ok", equalTo(true)).body("plugin", equalTo("extractors/" + good))
                .body("message", containsString("RECORD of stream 'users'"));
        noProcessLeft(pids);
        assertEquals(1, discoveries(count), "the test discovered the catalog it needs (and cached it)");

        // a tap that ends right after its RECORD (or dies of the closed pipe) passed too
        for (int i = 0; i < 3; i++) {
            String quick = extractor(Map.of("file", users("ada").toString()), List.of("catalog", "discover"), List.of());
            json().post("/api/v1/plugins/extractors/" + quick + ":test").then().statusCode(200)
                    .body("ok", equalTo(true));
        }

        String bad = extractor(Map.of("file", "/nonexistent/s3cr3t-pass/users.txt", "password", "s3cr3t-pass",
                "pid_file", pids.toString()), List.of("catalog", "discover"), List.of("password"));
        JsonPath r = json().post("/api/v1/plugins/extractors/" + bad + ":test").then().statusCode(200)
                .body("ok", equalTo(false)).body("exitCode", equalTo(1)).extract().jsonPath();
        assertEquals("the tap failed (exit code 1): FileNotFoundError: [Errno 2] No such file or directory:"
                + " '/nonexistent/********/users.txt'", r.getString("message"));
        noProcessLeft(pids);
        String audit = json().queryParam("target", "extractors/" + bad).get("/api/v1/audit").asString();
        assertTrue(audit.contains("plugin.test"), audit);
        assertFalse(audit.contains("s3cr3t-pass"), audit);
    }

    @Test
    void loadersAreTestedByStartingThemAndAboutPrintsTheirAbout() {
        String withAbout = unique("target-about");
        json().body(Map.of("name", withAbout, "executable", TAP.toString(), "capabilities", List.of("about")))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        json().post("/api/v1/plugins/loaders/" + withAbout + ":test").then().statusCode(200)
                .body("ok", equalTo(true)).body("about.name", equalTo("catalog-tap"));
        json().get("/api/v1/plugins/loaders/" + withAbout + "/about").then().statusCode(200)
                .body("name", equalTo("catalog-tap")).body("settings[1].kind", equalTo("password"));

        String plain = unique("target");
        json().body(Map.of("name", plain, "executable", Connectors.TARGET.toString(), "config", Map.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        json().post("/api/v1/plugins/loaders/" + plain + ":test").then().statusCode(200).body("ok", equalTo(true));
        problem(json().get("/api/v1/plugins/loaders/" + plain + "/about").then(), 400, "validation");

        String missing = unique("target-missing");
        json().body(Map.of("name", missing, "executable", "/nonexistent/target-missing"))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        json().post("/api/v1/plugins/loaders/" + missing + ":test").then().statusCode(200)
                .body("ok", equalTo(false)).body("message", containsString("/nonexistent/target-missing"));
        problem(json().post("/api/v1/plugins/mappers/" + missing + ":test").then(), 400, "validation");
        problem(json().post("/api/v1/plugins/extractors/" + unique("none") + ":test").then(), 404, "not-found");
        problem(json().get("/api/v1/plugins/extractors/" + unique("none") + "/streams").then(), 404, "not-found")
                .body("detail", not(containsString("null")));
    }
}
