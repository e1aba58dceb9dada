package io.tapline.common.api;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.config.EncoderConfig;
import io.restassured.specification.RequestSpecification;
import io.tapline.support.Connectors;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 item 6: behind a proxy whose cookie is the credential, another site's page can send
 * forms and body-less requests. {@code projects:import} took {@code text/plain}, and {@code :test},
 * {@code :discover}, {@code :install} and {@code runs/{id}/cancel} took form bodies; every state
 * change now takes only JSON or YAML (or no Content-Type at all) and no other site's Origin.
 */
@QuarkusTest
class CrossSiteRequestsTest {

    private static final String YAML = "version: 1\nplugins:\n  extractors:\n  - name: tap-x\n    executable: tap-x\n";

    /** The admin's JSON request spec with a raw Content-Type, sent as given (no charset added). */
    private static RequestSpecification as(String contentType) {
        return json().config(RestAssured.config().encoderConfig(EncoderConfig.encoderConfig()
                .appendDefaultContentCharsetToContentTypeIfUndefined(false))).contentType(contentType);
    }

    @Test
    void anImportSentAsTextPlainIsRefused() {
        // regression: a cross-site form with enctype="text/plain" could import a meltano.yml
        problem(as("text/plain").body(YAML.getBytes(java.nio.charset.StandardCharsets.UTF_8)).post("/api/v1/projects:import?dryRun=true").then(), 415,
                "unsupported-media-type").body("detail", containsString("Content-Type 'text/plain' is not accepted"));
        problem(as("text/plain").body(YAML.getBytes(java.nio.charset.StandardCharsets.UTF_8)).post("/api/v1/projects/import?dryRun=true").then(), 415,
                "unsupported-media-type");
        as("application/yaml").body(YAML.getBytes(java.nio.charset.StandardCharsets.UTF_8)).post("/api/v1/projects:import?dryRun=true").then().statusCode(200);
        as("application/x-yaml").body(YAML.getBytes(java.nio.charset.StandardCharsets.UTF_8)).post("/api/v1/projects:import?dryRun=true").then().statusCode(200);
    }

    @Test
    void bodyLessActionsRefuseFormContentTypes() {
        String p = Connectors.pipeline(Map.of("records", 1), Map.of(), Map.of());
        String tap = json().get("/api/v1/pipelines/" + p).then().extract().path("extractor");
        String run = Connectors.trigger(p, Map.of());
        List<String> paths = List.of("/api/v1/plugins/extractors/" + tap + ":test",
                "/api/v1/plugins/extractors/" + tap + ":discover", "/api/v1/plugins/extractors/" + tap + ":install",
                "/api/v1/runs/" + run + "/cancel", "/api/v1/runs/" + UUID.randomUUID() + "/cancel");
        for (String path : paths) {
            for (String type : List.of("application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                    "text/plain")) {
                String body = type.startsWith("multipart") ? "--x\r\nContent-Disposition: form-data; name=a\r\n\r\nb\r\n--x--\r\n"
                        : "a=b";
                java.net.http.HttpResponse<String> r = post(path, type, body);
                assertEquals(415, r.statusCode(), path + " " + type + ": " + r.body());
                assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
                assertTrue(r.body().contains("A call without a body needs no Content-Type"), r.body());
            }
        }
        Connectors.awaitEnd(run, java.time.Duration.ofSeconds(60)).then().body("status",
                org.hamcrest.Matchers.equalTo("SUCCEEDED"));
    }

    /** A POST with the admin's token and exactly this Content-Type and body. */
    private static java.net.http.HttpResponse<String> post(String path, String contentType, String body) {
        try {
            return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                            URI.create("http://localhost:" + RestAssured.port + path))
                    .header("Authorization", io.tapline.support.Tokens.bearer(io.tapline.support.Tokens.admin()))
                    .header("Content-Type", contentType)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anotherSitesOriginIsRefusedAndTheOwnOneOrNoneWorks() {
        String own = "http://localhost:" + RestAssured.port;
        for (String origin : List.of("https://evil.example", "null", "http://localhost:1", "http://localhost.evil.example:"
                + RestAssured.port, own + "/path")) {
            String name = unique("tap-origin");
            problem(json().header("Origin", origin).body(Map.of("name", name, "executable", "tap-x"))
                    .post("/api/v1/plugins/extractors").then(), 403, "forbidden")
                    .body("detail", containsString("from another site"));
            json().get("/api/v1/plugins/extractors/" + name).then().statusCode(404);
            problem(json().header("Origin", origin).delete("/api/v1/plugins/extractors/" + name).then(), 403,
                    "forbidden");
        }
        json().header("Origin", own).body(Map.of("name", unique("tap-origin"), "executable", "tap-x"))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        json().body(Map.of("name", unique("tap-origin"), "executable", "tap-x"))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        // reads are not checked
        json().header("Origin", "https://evil.example").get("/api/v1/plugins/extractors").then().statusCode(200);
    }

    @Test
    void originsCompareHostAndPortButNotTheScheme() {
        URI behindTls = URI.create("http://tapline.example.com/api/v1/pipelines");
        assertTrue(CrossSiteRequests.sameOrigin("https://tapline.example.com", behindTls));
        assertTrue(CrossSiteRequests.sameOrigin("https://TAPLINE.example.com:443",
                URI.create("https://tapline.example.com/api/v1/x")));
        assertTrue(CrossSiteRequests.sameOrigin("http://[::1]:8080", URI.create("http://[::1]:8080/api/v1/x")));
        assertFalse(CrossSiteRequests.sameOrigin("https://tapline.example.com:8443", behindTls));
        assertFalse(CrossSiteRequests.sameOrigin("https://tapline.example.com.evil", behindTls));
        assertFalse(CrossSiteRequests.sameOrigin("not a uri", behindTls));
        assertTrue(CrossSiteRequests.accepted("application/json; charset=UTF-8"));
        assertTrue(CrossSiteRequests.accepted("application/merge-patch+json"));
        assertTrue(CrossSiteRequests.accepted("TEXT/YAML"));
        assertFalse(CrossSiteRequests.accepted("text/plain"));
        assertFalse(CrossSiteRequests.accepted("application/x-www-form-urlencoded"));
        assertFalse(CrossSiteRequests.accepted("multipart/form-data; boundary=x"));
        assertFalse(CrossSiteRequests.accepted("text/json"));
    }
}
