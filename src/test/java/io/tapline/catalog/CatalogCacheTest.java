package io.tapline.catalog;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The catalog cache: discover once, again on a key change or a refresh, once for concurrent runs. */
@QuarkusTest
class CatalogCacheTest {

    static final Path TAP = Path.of("src/test/resources/connectors/catalog_tap.py").toAbsolutePath();
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Creates a catalog_tap extractor; returns its name. */
    static String extractor(Map<String, Object> config, List<String> capabilities, List<String> sensitive) {
        String name = unique("tap-cat");
        json().body(Map.of("name", name, "executable", TAP.toString(), "capabilities", capabilities,
                "config", config, "sensitive", sensitive)).post("/api/v1/plugins/extractors").then().statusCode(201);
        return name;
    }

    /** A pipeline from an existing extractor to a new test target; returns its name. */
    static String pipeline(String extractor) {
        String target = unique("target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString(), "config", Map.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String name = unique("pl-cat");
        json().body(Map.of("name", name, "extractor", extractor, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        return name;
    }

    static int discoveries(Path countFile) throws IOException {
        return Files.exists(countFile) ? Files.readAllLines(countFile).size() : 0;
    }

    static Path users(String... names) throws IOException {
        Path f = Files.createTempFile("users", ".txt");
        Files.write(f, List.of(names));
        return f;
    }

    private static String run(String pipeline, Map<String, Object> body, String source) {
        String id = trigger(pipeline, body);
        awaitEnd(id, WAIT).then().body("status", equalTo("SUCCEEDED")).body("catalogSource", equalTo(source));
        return id;
    }

    private static String log(String run) {
        return json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
    }

    @Test
    void twoRunsDiscoverOnceAndAChangeOfTheKeyOrARefreshDiscoversAgain() throws Exception {
        Path count = Files.createTempFile("discover-count", ".txt");
        Files.delete(count);
        Map<String, Object> config = new LinkedHashMap<>(Map.of("count_file", count.toString(),
                "file", users("ada", "bob").toString(), "password", "p4ssw0rd-one"));
        String tap = extractor(config, List.of("catalog", "discover", "state"), List.of("password"));
        String p = pipeline(tap);

        String first = run(p, Map.of(), "discovered");
        assertTrue(log(first).contains("discovering the catalog"), log(first));
        assertEquals(1, discoveries(count));
        String second = run(p, Map.of(), "cache");
        assertTrue(log(second).contains("catalog: from the cache"), log(second));
        assertFalse(log(second).contains("discovering the catalog"), log(second));
        assertTrue(log(second).contains("STREAMS [\"orders\", \"users\"]"), "the cached catalog is passed: "
                + log(second));
        assertEquals(1, discoveries(count), "the second run reused the cached catalog");

        // a secret's value is part of the key (as a digest): a new password discovers again
        json().contentType("application/merge-patch+json").body(Map.of("config", Map.of("password", "p4ssw0rd-two")))
                .patch("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        run(p, Map.of(), "discovered");
        assertEquals(2, discoveries(count));
        // any other config change too
        json().contentType("application/merge-patch+json").body(Map.of("config", Map.of("file",
                users("cy").toString()))).patch("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        run(p, Map.of(), "discovered");
        assertEquals(3, discoveries(count));
        run(p, Map.of(), "cache");
        assertEquals(3, discoveries(count));
        // the args too
        json().contentType("application/merge-patch+json").body(Map.of("args", List.of("--verbose")))
                .patch("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        run(p, Map.of(), "discovered");
        assertEquals(4, discoveries(count));
        // refreshCatalog forces a discovery
        String refreshed = run(p, Map.of("refreshCatalog", true), "discovered");
        assertTrue(log(refreshed).contains("refreshCatalog"), log(refreshed));
        assertEquals(5, discoveries(count));
        run(p, Map.of(), "cache");
        assertEquals(5, discoveries(count));
        String stored = json().get("/api/v1/runs/" + refreshed).asString();
        assertFalse(stored.contains("p4ssw0rd"), stored);
    }

    @Test
    void aStoredUserCatalogWinsOverDiscovery() throws Exception {
        Path count = Files.createTempFile("discover-count", ".txt");
        Files.delete(count);
        String tap = unique("tap-cat");
        json().body(Map.of("name", tap, "executable", TAP.toString(), "capabilities", List.of("catalog", "discover"),
                "config", Map.of("count_file", count.toString(), "file", users("ada").toString()),
                "catalog", Map.of("streams", List.of()))).post("/api/v1/plugins/extractors").then().statusCode(201);
        String run = run(pipeline(tap), Map.of("refreshCatalog", true), "user");
        assertTrue(log(run).contains("catalog: the extractor's stored catalog"), log(run));
        assertEquals(0, discoveries(count));
    }

    @Test
    void twoConcurrentRunsOfOneExtractorDiscoverOnce() throws Exception {
        Path count = Files.createTempFile("discover-count", ".txt");
        Files.delete(count);
        String tap = extractor(Map.of("count_file", count.toString(), "file", users("ada").toString(),
                "discover_delay", 2), List.of("catalog", "discover"), List.of());
        String a = pipeline(tap);
        String b = pipeline(tap);
        String runA = trigger(a, Map.of());
        String runB = trigger(b, Map.of());
        JsonPath ra = awaitEnd(runA, WAIT).then().body("status", equalTo("SUCCEEDED")).extract().jsonPath();
        JsonPath rb = awaitEnd(runB, WAIT).then().body("status", equalTo("SUCCEEDED")).extract().jsonPath();
        assertEquals(1, discoveries(count), "two concurrent runs discovered once");
        assertEquals(Set.of("discovered", "cache"), Set.of(ra.getString("catalogSource"), rb.getString("catalogSource")));
        String waited = "cache".equals(ra.getString("catalogSource")) ? runA : runB;
        String log = json().accept("text/plain").get("/api/v1/runs/" + waited + "/log").asString();
        assertTrue(log.contains("catalog: from the cache"), log);
    }

    @Test
    void aDiscoveryFailureIsNotCached() throws Exception {
        Path count = Files.createTempFile("discover-count", ".txt");
        Files.delete(count);
        String tap = extractor(Map.of("count_file", count.toString(), "discover", "hang"),
                List.of("catalog", "discover"), List.of());
        problem(json().post("/api/v1/plugins/extractors/" + tap + ":discover?timeoutSeconds=1").then(), 502,
                "connector-failed");
        problem(json().get("/api/v1/plugins/extractors/" + tap + "/streams").then(), 409, "no-catalog");
    }
}
