package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 item 2. A Python tap that logs its config dict, each secret's {@code repr},
 * {@code ascii}, bytes repr and {@code unicode_escape}, an HTTP Basic header, and dies of an
 * exception quoting its config ({@code repr_tap.py}) leaks none of its secrets: not a generated
 * password with both quotes, one with a control character, one with a non-printable non-ASCII
 * character, nor a 5-character password inside the Basic credential, in the run log, the run's
 * error summary, the events viewers read, the log file or the service log.
 */
@QuarkusTest
class SecretReprLeakTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Path TAP = Path.of("src/test/resources/connectors/repr_tap.py").toAbsolutePath();

    @Test
    void pythonReprsOfSecretsInATracebackAreMaskedEverywhere() throws Exception {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("quotes", "p'CANARY\"7f3a9q");
        config.put("escape", "esc\u001bK7q2w!");
        config.put("nbsp", "nb\u00a0sp9z");
        config.put("user", "bob");
        config.put("password", "Zq5x9");
        // what must not appear: a part of each secret that its masked forms cover, and the credential
        List<String> clear = List.of("7f3a9q", "CANARY", "K7q2w", "sp9z", "Zq5x9", "Ym9iOlpxNXg5", "pxNXg5");

        String pipeline = pipeline(config, List.of("quotes", "escape", "nbsp", "password"));
        String run = trigger(pipeline, Map.of());
        String runBody = awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("ValueError: login refused with {"))
                .body("errorSummary", containsString("'password': '********'")).extract().asString();
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("extractor | REPR quotes '********' ASCII '********'"), log);
        assertTrue(log.contains("extractor | BYTES escape b'********'"), log);
        assertTrue(log.contains("extractor | ESCAPE nbsp b'********' ********"), log);
        assertTrue(log.contains("{'Authorization': 'Basic ********'}"), log);
        assertTrue(log.contains("Traceback (most recent call last)"), log);
        await().atMost(WAIT).until(() -> !json().queryParam("pipeline", pipeline).queryParam("type", "run.failed")
                .get("/api/v1/events").jsonPath().getList("items").isEmpty());
        String events = json().queryParam("pipeline", pipeline).get("/api/v1/events").then()
                .body("items[0].payload.run.failure.reason", containsString("'quotes': '********'")).extract().asString();

        assertClean("the run", runBody, clear);
        assertClean("the run log", log, clear);
        assertClean("the events", events, clear);
        assertClean("the run log file", latin1(Path.of("target/test-logs", run + ".log")), clear);
        assertClean("the service log", latin1(Path.of("target/test-service.log")), clear);
    }

    @Test
    void theNulSeparatedPiecesOfAFileReadByReferenceAreMasked() throws Exception {
        // issue 31 item 3: a file of NUL-separated entries (as /proc/<pid>/environ is) printed piece by piece and as repr
        Path file = Files.createTempFile("tapline-entries", "");
        Files.writeString(file, "ALPHA=k9w2piece\0BETA=x7q4piece\0", StandardCharsets.UTF_8);
        String pipeline = pipeline(Map.of("blob", "${file:" + file + "}"), List.of());
        String run = trigger(pipeline, Map.of());
        String runBody = awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("ValueError: login refused with {'blob': '********'}"))
                .extract().asString();
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("extractor | PIECE blob ********"), log);
        assertTrue(log.contains("extractor | ESCAPE blob b'********' ********"), log);
        List<String> clear = List.of("k9w2piece", "x7q4piece");
        assertClean("the run", runBody, clear);
        assertClean("the run log", log, clear);
    }

    private static String pipeline(Map<String, Object> config, List<String> sensitive) {
        String tap = unique("tap-repr");
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", tap);
        t.put("executable", TAP.toString());
        t.put("config", config);
        t.put("sensitive", sensitive);
        json().body(t).post("/api/v1/plugins/extractors").then().statusCode(201);
        String target = unique("target-repr");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String name = unique("pl-repr");
        json().body(Map.of("name", name, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        return name;
    }

    private static String latin1(Path file) throws java.io.IOException {
        return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1) : "";
    }

    private static void assertClean(String where, String text, List<String> clear) {
        for (String c : clear) {
            assertFalse(text.contains(c), "a secret (" + c + ") appears in " + where + ": " + text);
        }
    }
}
