package io.tapline.catalog;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.tapline.catalog.CatalogCacheTest.extractor;
import static io.tapline.catalog.CatalogCacheTest.users;
import static io.tapline.support.Api.json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31, item 7: a flood of {@code :test} calls against a slow connection test. Probes run on
 * their own threads and are capped per caller ({@code tapline.catalog.probes-per-caller}, 2) and in
 * total ({@code max-probes}, 4): the calls beyond get 429 problem+json at once, readiness and the
 * API answer while the admitted probes run, and those finish normally once released.
 */
@QuarkusTest
class ProbeFloodTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final int FLOOD = 60;

    @TestHTTPResource("/")
    URL root;

    @Test
    void probesBeyondTheCapsGet429AndReadinessStaysUp() throws Exception {
        Path wait = Files.createTempFile("probe-wait", ".txt");
        String tap = extractor(Map.of("file", users("ada").toString(), "test_wait_file", wait.toString()),
                List.of(), List.of());
        String admin = Tokens.admin();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < FLOOD; i++) {
            calls.add(test(tap, admin));
        }
        // two probes of this caller run (their taps wait for the go file); every other call was refused
        await("two probes running").atMost(Duration.ofSeconds(60)).until(() -> started(wait) == 2);
        await("the other calls answered").atMost(Duration.ofSeconds(60))
                .until(() -> calls.stream().filter(CompletableFuture::isDone).count() == FLOOD - 2);
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            if (c.isDone()) {
                HttpResponse<String> r = c.get();
                assertEquals(429, r.statusCode(), r.body());
                assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
                assertTrue(r.body().contains("tapline.catalog.probes-per-caller"), r.body());
            }
        }

        // Other callers: up to the total of 4, then 429 naming the total.
        List<CompletableFuture<HttpResponse<String>>> others = List.of(
                test(tap, Tokens.of("op-a", "operator")), test(tap, Tokens.of("op-b", "operator")));
        await("four probes running").atMost(Duration.ofSeconds(60)).until(() -> started(wait) == 4);
        HttpResponse<String> full = test(tap, Tokens.of("op-c", "operator")).get();
        assertEquals(429, full.statusCode(), full.body());
        assertTrue(full.body().contains("tapline.catalog.max-probes"), full.body());

        // While four probes run: readiness and the API answer.
        assertEquals(200, get("/q/health/ready", null).statusCode());
        assertEquals(200, get("/api/v1/plugins/extractors/" + tap, admin).statusCode());

        Files.createFile(Path.of(wait + ".go"));
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            if (!c.get().body().contains("too-many-requests")) {
                assertEquals(200, c.get().statusCode(), c.get().body());
                assertTrue(c.get().body().contains("\"ok\":true"), c.get().body());
            }
        }
        for (CompletableFuture<HttpResponse<String>> c : others) {
            assertEquals(200, c.get().statusCode(), c.get().body());
        }
        // the places are given back: the next probe runs
        assertEquals(200, test(tap, admin).get().statusCode());
    }

    private CompletableFuture<HttpResponse<String>> test(String tap, String token) {
        HttpRequest r = HttpRequest.newBuilder(URI.create(root + "api/v1/plugins/extractors/" + tap + ":test"))
                .timeout(Duration.ofSeconds(120)).header("Authorization", Tokens.bearer(token))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        return HTTP.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(root + path.substring(1))).timeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", Tokens.bearer(token));
        }
        return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long started(Path wait) throws java.io.IOException {
        return Files.readAllLines(wait).stream().filter(l -> l.startsWith("STARTED")).count();
    }
}
