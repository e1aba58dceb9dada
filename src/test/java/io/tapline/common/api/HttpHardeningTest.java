package io.tapline.common.api;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.smallrye.jwt.build.Jwt;
import io.tapline.support.Connectors;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.as;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 items 10, 11 and 12: hostile input gets a 4xx problem+json in plain words, never a 500
 * with SQL in the log, an empty body, or a wrong answer.
 */
@QuarkusTest
@io.quarkus.test.junit.TestProfile(HttpHardeningTest.OwnService.class)
class HttpHardeningTest {

    /**
     * A service of its own: the slow-upload case counts connections and worker threads, which the
     * connections and streams other test classes leave open in the shared test service disturb.
     */
    public static class OwnService implements io.quarkus.test.junit.QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.api.max-uploads-per-caller", "32");
        }
    }

    @Test
    void aNulCharacterInTheUrlOrABodyIs400() {
        for (String url : List.of("/api/v1/pipelines/a%00b", "/api/v1/runs?pipeline=x%00y", "/api/v1/states?pattern=%00",
                "/api/v1/audit?actor=a%00", "/api/v1/pipelines?cursor=%00", "/api/v1/states/dev:a%00-to-b")) {
            problem(json().urlEncodingEnabled(false).get(url).then(), 400, "validation")
                    .body("detail", containsString("NUL character"));
        }
        problem(json().body(Map.of("name", unique("tap-nul"), "executable", "/bin/tr\u0000ue"))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("executable"))
                .body("detail", equalTo("Field 'executable' contains a NUL character (\\u0000), which no value may hold."));
        problem(json().body(Map.of("name", "tap-\u0000x", "executable", "/bin/true"))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("name"));
    }

    @Test
    void extremeAndEarlyDatesAreAnsweredCorrectly() {
        for (String url : List.of("/api/v1/runs?from=%2B999999999-01-01T00:00:00Z",
                "/api/v1/runs?to=-999999999-01-01T00:00:00Z", "/api/v1/audit?from=%2B999999999-12-31T23:59:59Z")) {
            problem(json().urlEncodingEnabled(false).get(url).then(), 400, "validation")
                    .body("detail", containsString("between the years 0001 and 9999"));
        }
        String p = Connectors.pipeline(Map.of("records", 1), Map.of(), Map.of());
        String run = Connectors.trigger(p, Map.of());
        json().queryParam("pipeline", p).queryParam("from", "1960-01-01T00:00:00Z").get("/api/v1/runs")
                .then().statusCode(200).body("items.id", hasItem(run));
        json().queryParam("from", "0001-01-01T00:00:00Z").queryParam("to", "9999-12-31T00:00:00Z")
                .queryParam("pipeline", p).get("/api/v1/runs").then().statusCode(200).body("items.id", hasItem(run));
        json().queryParam("from", "1960-01-01T00:00:00Z").get("/api/v1/audit").then().statusCode(200)
                .body("items.size()", greaterThan(0));
        Connectors.awaitEnd(run, Duration.ofSeconds(60));
    }

    @Test
    void oddGroupsClaimsAndTokensFromTheFutureAreRefused() throws Exception {
        long now = Instant.now().getEpochSecond();
        for (String groups : List.of("{\"admin\": true}", "7", "[\"viewer\", 1]")) {
            problem(as(token("{\"iss\": \"" + Tokens.ISSUER + "\", \"sub\": \"odd\", \"iat\": " + now
                    + ", \"exp\": " + (now + 3600) + ", \"groups\": " + groups + "}")).get("/api/v1/pipelines").then(),
                    401, "unauthorized");
        }
        String oneString = token("{\"iss\": \"" + Tokens.ISSUER + "\", \"sub\": \"odd\", \"iat\": " + now
                + ", \"exp\": " + (now + 3600) + ", \"groups\": \"viewer admin\"}");
        problem(as(oneString).get("/api/v1/audit").then(), 403, "forbidden");
        problem(as(oneString).get("/api/v1/pipelines").then(), 403, "forbidden");
        String plainString = token("{\"iss\": \"" + Tokens.ISSUER + "\", \"sub\": \"odd\", \"iat\": " + now
                + ", \"exp\": " + (now + 3600) + ", \"groups\": \"viewer\"}");
        as(plainString).get("/api/v1/pipelines").then().statusCode(200);
        Instant tomorrow = Instant.now().plusSeconds(86400);
        String future = Jwt.issuer(Tokens.ISSUER).subject("time-traveller").groups("admin").issuedAt(tomorrow)
                .expiresAt(tomorrow.plusSeconds(3600)).sign(Tokens.privateKey());
        problem(as(future).get("/api/v1/pipelines").then(), 401, "unauthorized");
    }

    /** A token with exactly these claims, signed RS256 with the test issuer's key. */
    private static String token(String claims) throws Exception {
        java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
        String signingInput = b64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8))
                + "." + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        java.security.Signature sig = java.security.Signature.getInstance("SHA256withRSA");
        sig.initSign(Tokens.privateKey());
        sig.update(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + b64.encodeToString(sig.sign());
    }

    @Test
    void parserLimitsAndHugeNumbersAreWordedPlainly() {
        String deep = "[".repeat(3000) + "]".repeat(3000);
        problem(json().body("{\"name\": \"x\", \"config\": {\"a\": " + deep + "}}").post("/api/v1/plugins/extractors")
                .then(), 400, "malformed-body")
                .body("detail", not(containsString("StreamReadConstraints")))
                .body("detail", not(containsString("get")))
                .body("detail", containsString("nested too deeply"));
        problem(json().body("{\"singer_state\": " + deep + "}").put("/api/v1/states/dev:deep-to-x").then(), 400,
                "malformed-body").body("detail", not(containsString("StreamReadConstraints")))
                .body("detail", not(containsString("getMax")));
        problem(json().body("{\"name\": \"" + unique("tap-inf") + "\", \"executable\": \"/bin/true\","
                        + " \"config\": {\"n\": 1e999999999}}").post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("detail", containsString("numbers must be finite"));
    }

    /** Item 9: slow request bodies are capped per caller (429) and cut off after the body timeout (408). */
    @Test
    void slowBodiesAreCappedPerCallerAndCutOff() throws Exception {
        String head = "POST /api/v1/plugins/extractors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                + Tokens.of("slow-uploader", "admin") + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{";
        List<Socket> slow = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) { // tapline.api.max-uploads-per-caller
                Socket s = new Socket("localhost", RestAssured.port);
                s.setSoTimeout(30_000);
                s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                slow.add(s);
            }
            // the server reads the 32 heads on its event loops in any order: probe (each probe gives up
            // after 1 s and closes) until all 32 are counted and the next one is refused
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> raw(head, null, 1_000).status == 429);
            Raw refused = raw(head, null);
            assertEquals(429, refused.status, refused.text);
            assertTrue(refused.text.contains("application/problem+json")
                    && refused.text.contains("tapline.api.max-uploads-per-caller"), refused.text);
            // everyone else is served at once
            json().get("/api/v1/pipelines").then().statusCode(200);
            // each slow body is cut off after the body timeout (10 s in the tests)
            long t0 = System.nanoTime();
            byte[] buf = new byte[4096];
            int n = slow.get(0).getInputStream().read(buf);
            String answer = new String(buf, 0, Math.max(n, 0), StandardCharsets.ISO_8859_1);
            assertTrue(answer.startsWith("HTTP/1.1 408") && answer.contains("tapline.api.body-timeout"), answer);
            assertTrue(System.nanoTime() - t0 < 25_000_000_000L);
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    private record Raw(int status, String text) {
    }

    private interface Body {
        void write(OutputStream out) throws Exception;
    }

    private static Raw raw(String head, Body body) throws Exception {
        return raw(head, body, 20_000);
    }

    /** Sends {@code head} (and {@code body}) on a new connection; status -1 when nothing came within {@code timeoutMs}. */
    private static Raw raw(String head, Body body, int timeoutMs) throws Exception {
        try (Socket s = new Socket("localhost", RestAssured.port)) {
            s.setSoTimeout(timeoutMs);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                try {
                    body.write(out);
                } catch (java.io.IOException ignored) {
                    // the server may answer and close before the whole body is sent
                }
            }
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    got.write(buf, 0, n);
                    String t = got.toString(StandardCharsets.ISO_8859_1);
                    int end = t.indexOf("\r\n\r\n");
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(t);
                    if (end > 0 && m.find() && got.size() >= end + 4 + Integer.parseInt(m.group(1))) {
                        break;
                    }
                }
            } catch (java.io.IOException ignored) {
                // connection reset after the answer
            }
            String text = got.toString(StandardCharsets.ISO_8859_1);
            int status = text.startsWith("HTTP/1.1 ") ? Integer.parseInt(text.substring(9, 12)) : -1;
            return new Raw(status, text);
        }
    }
}
