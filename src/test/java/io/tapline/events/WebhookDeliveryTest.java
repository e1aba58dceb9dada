package io.tapline.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.tapline.events.webhook.Signatures;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.hasKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Webhooks against a real local HTTP receiver: signing, retries, the delivery log, the API contract. */
@QuarkusTest
@TestProfile(EventsProfile.class)
class WebhookDeliveryTest {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();
    static final String SECRET = "whsec-test-0123456789abcdef";

    /** Creates a webhook to {@code <receiver><path>} and returns its id. */
    static String webhook(String path, List<String> events, List<String> pipelines, String format) {
        return json().body(Map.of("url", ReceiverResource.receiver.base() + path, "events", events,
                        "pipelines", pipelines, "secret", SECRET, "format", format))
                .post("/api/v1/webhooks").then().statusCode(201)
                .body("secretSet", equalTo(true)).body("$", not(hasKey("secret")))
                .extract().path("id");
    }

    /** The webhook's delivery log. */
    static JsonPath deliveries(String webhookId) {
        return json().get("/api/v1/webhooks/" + webhookId + "/deliveries").then().statusCode(200).extract().jsonPath();
    }

    @Test
    void aFailedRunProducesExactlyOneSignedDeliveryThatTheReceiverVerifies() throws Exception {
        String p = pipeline(Map.of("records", 2, "state_every", 2), Map.of("mode", "fail-before-state"), Map.of());
        String path = "/hooks/" + p;
        String hook = webhook(path, List.of("run.failed"), List.of(p), "json");
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"));

        await().atMost(WAIT).until(() -> "DELIVERED".equals(deliveries(hook).getString("items[0].status")));
        JsonPath log = deliveries(hook);
        assertEquals(1, log.getList("items").size(), "one event, one delivery");
        assertEquals(1, log.getInt("items[0].attempts"));
        assertEquals(200, log.getInt("items[0].lastStatusCode"));

        // settled DELIVERED: no further attempt can be made, so the count is final
        List<Receiver.Request> got = ReceiverResource.receiver.at(path);
        assertEquals(1, got.size(), "exactly one request");
        Receiver.Request r = got.get(0);
        String sig = r.header("Tapline-Signature");
        assertNotNull(sig);
        String[] parts = sig.split(",");
        assertTrue(parts[0].startsWith("t=") && parts[1].startsWith("v1="), sig);
        long t = Long.parseLong(parts[0].substring(2));
        assertTrue(Math.abs(Instant.now().getEpochSecond() - t) < 120, "a fresh timestamp");
        String expected = Signatures.hmac(SECRET, t + "." + r.body());
        assertTrue(java.security.MessageDigest.isEqual(expected.getBytes(), parts[1].substring(3).getBytes()),
                "the receiver verifies HMAC-SHA256(secret, t.body)");
        assertEquals("run.failed", r.header("Tapline-Event"));
        assertEquals(log.getString("items[0].id"), r.header("Tapline-Delivery"));
        assertTrue(r.header("Content-Type").startsWith("application/json"));

        JsonNode body = JSON.readTree(r.body());
        assertEquals("run.failed", body.path("type").asText());
        assertEquals(p, body.path("pipeline").asText());
        assertEquals(run, body.path("run").path("id").asText());
        assertEquals("FAILED", body.path("run").path("status").asText());
        assertEquals("loader", body.path("run").path("failure").path("component").asText());
        assertEquals("connector", body.path("run").path("failure").path("origin").asText());
        assertTrue(body.path("run").path("failure").path("reason").asText().contains("Loader failed"),
                body.toString());
        // the same body is the stored event
        json().queryParam("pipeline", p).get("/api/v1/events").then().statusCode(200)
                .body("items.size()", equalTo(1)).body("items[0].type", equalTo("run.failed"))
                .body("items[0].runId", equalTo(run)).body("items[0].payload.id", equalTo(body.path("id").asText()));
    }

    @Test
    void aReceiverThatAnswers500TwiceGetsTheEventOnTheThirdTry() throws Exception {
        String p = pipeline(Map.of("records", 1, "state_every", 1), Map.of(), Map.of());
        String path = "/flaky/" + p;
        ReceiverResource.receiver.answer(path, 500, 500);
        String hook = webhook(path, List.of("run.succeeded"), List.of(p), "json");
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"));

        await().atMost(WAIT).until(() -> "DELIVERED".equals(deliveries(hook).getString("items[0].status")));
        JsonPath log = deliveries(hook);
        assertEquals(3, log.getInt("items[0].attempts"));
        assertEquals(List.of(500, 500, 200), log.getList("items[0].attemptLog.statusCode"));
        assertEquals(List.of(1, 2, 3), log.getList("items[0].attemptLog.attempt"));
        assertEquals("answered 500", log.getString("items[0].attemptLog[0].error"));
        List<Receiver.Request> got = ReceiverResource.receiver.at(path);
        assertEquals(3, got.size());
        assertEquals(1, got.stream().map(x -> x.header("Tapline-Delivery")).distinct().count(), "one delivery id");
        assertEquals(1, got.stream().map(Receiver.Request::body).distinct().count(), "the same body each time");
        // the backoff doubles: the third try waited longer than the second
        List<String> at = log.getList("items[0].attemptLog.at");
        Duration first = Duration.between(Instant.parse(at.get(0)), Instant.parse(at.get(1)));
        Duration second = Duration.between(Instant.parse(at.get(1)), Instant.parse(at.get(2)));
        assertTrue(first.toMillis() >= 200 && second.toMillis() >= 400, first + " then " + second);
    }

    @Test
    void slackFormatSendsATextBodyAndOtherPipelinesAndTypesAreNotDelivered() throws Exception {
        String p = pipeline(Map.of("records", 1, "state_every", 1), Map.of(), Map.of());
        String other = pipeline(Map.of("records", 1, "state_every", 1), Map.of(), Map.of());
        String path = "/slack/" + p;
        String hook = webhook(path, List.of("run.succeeded"), List.of(p.substring(0, 3) + "*" + p.substring(p.length() - 4)),
                "slack");
        String failedHook = webhook("/never/" + p, List.of("run.failed"), List.of(p), "json");
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT);
        awaitEnd(trigger(other, Map.of()), WAIT);
        await().atMost(WAIT).until(() -> "DELIVERED".equals(deliveries(hook).getString("items[0].status")));
        assertEquals(1, deliveries(hook).getList("items").size(), "the other pipeline does not match the glob");
        JsonNode body = JSON.readTree(ReceiverResource.receiver.at(path).get(0).body());
        assertTrue(body.path("text").asText().contains(p) && body.path("text").asText().contains(run), body.toString());
        assertEquals(0, deliveries(failedHook).getList("items").size(), "run.succeeded is not run.failed");
    }

    @Test
    void webhooksAreAdminOnlyValidatedAndNeverShowTheSecret() {
        String base = ReceiverResource.receiver.base();
        String id = webhook("/crud", List.of("run.failed", "state.large"), List.of("*"), "json");
        String secretless = json().get("/api/v1/webhooks/" + id).then().statusCode(200)
                .body("url", equalTo(base + "/crud")).body("events", equalTo(List.of("run.failed", "state.large")))
                .body("format", equalTo("json")).extract().asString();
        assertTrue(!secretless.contains(SECRET) && !json().get("/api/v1/webhooks").asString().contains(SECRET));
        problem(json().body(Map.of("url", "http://169.254.169.254/latest/meta-data", "events", List.of("run.failed"),
                "secret", SECRET)).post("/api/v1/webhooks").then(), 400, "validation")
                .body("errors[0].field", equalTo("url"));
        problem(json().body(Map.of("url", base + "/x", "events", List.of("run.exploded"), "secret", "short"))
                .post("/api/v1/webhooks").then(), 400, "validation")
                .body("errors.field", equalTo(List.of("events[0]", "secret")));
        problem(json().body(Map.of("url", "file:///etc/passwd", "events", List.of("run.failed"), "secret", SECRET))
                .post("/api/v1/webhooks").then(), 400, "validation");
        problem(io.tapline.support.Api.as(io.tapline.support.Tokens.of("op", "operator")).get("/api/v1/webhooks").then(), 403,
                "forbidden");
        json().delete("/api/v1/webhooks/" + id).then().statusCode(204);
        problem(json().get("/api/v1/webhooks/" + id).then(), 404, "not-found");
    }
}
