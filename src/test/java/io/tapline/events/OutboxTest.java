package io.tapline.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.tapline.common.config.TaplineConfig;
import io.tapline.events.delivery.DeliveryRepository;
import io.tapline.events.delivery.DeliverySender;
import io.tapline.events.delivery.DeliveryWorker;
import io.tapline.schedule.PipelinePaused;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.tapline.events.WebhookDeliveryTest.WAIT;
import static io.tapline.events.WebhookDeliveryTest.deliveries;
import static io.tapline.events.WebhookDeliveryTest.webhook;
import static io.tapline.support.Api.json;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The outbox end to end: replicas delivering once, state warnings, pipeline.paused, OpenLineage. */
@QuarkusTest
@TestProfile(EventsProfile.class)
class OutboxTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    jakarta.enterprise.event.Event<PipelinePaused> paused;
    @Inject
    DeliveryRepository deliveryRepository;
    @Inject
    EventRepository eventRepository;
    @Inject
    DeliverySender sender;
    @Inject
    TaplineConfig config;
    @Inject
    EventMetrics metrics;
    @Inject
    Clock clock;
    @Inject
    DeliveryWorker scheduledWorker;

    @Test
    void twoDeliveryWorkersOnOneDatabaseDeliverEachEventOnce() throws Exception {
        String pipeline = "replicas-" + System.nanoTime();
        String path = "/replicas/" + pipeline;
        ReceiverResource.receiver.delay(path, 30);
        webhook(path, List.of("pipeline.paused"), List.of(pipeline), "json");
        int events = 60;
        // all events become due at once, in one commit
        QuarkusTransaction.requiringNew().run(() -> {
            for (int i = 0; i < events; i++) {
                paused.fire(new PipelinePaused(-1, pipeline, "test pause " + i, null, 1));
            }
        });
        // two more replicas beside the scheduled poller of this one: separate instances, separate threads
        DeliveryWorker a = new DeliveryWorker(deliveryRepository, eventRepository, sender, config, metrics, clock);
        DeliveryWorker b = new DeliveryWorker(deliveryRepository, eventRepository, sender, config, metrics, clock);
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger byA = new AtomicInteger();
        AtomicInteger byB = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (Object[] w : List.of(new Object[]{a, byA}, new Object[]{b, byB})) {
            Thread t = new Thread(() -> {
                while (!done.get()) {
                    int n = ((DeliveryWorker) w[0]).deliverDue();
                    ((AtomicInteger) w[1]).addAndGet(n);
                    if (n == 0) {
                        sleep(20);
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        try {
            await().atMost(WAIT).until(() -> settled(pipeline)[0] == events);
        } finally {
            done.set(true);
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
        List<Receiver.Request> got = ReceiverResource.receiver.at(path);
        Set<String> ids = new HashSet<>();
        got.forEach(r -> ids.add(r.header("Tapline-Delivery")));
        assertEquals(events, got.size(), "every event delivered once, none twice");
        assertEquals(events, ids.size());
        assertTrue(byA.get() > 0 && byB.get() > 0, "both extra workers delivered some: " + byA + ", " + byB);
        assertEquals(events, settled(pipeline)[1], "one attempt per delivery");
        json().queryParam("pipeline", pipeline).queryParam("limit", 500).get("/api/v1/events").then()
                .body("items.size()", equalTo(events));
    }

    /** Deliveries of the pipeline's events that are DELIVERED, and their attempts in total. */
    private long[] settled(String pipeline) {
        Object[] row = QuarkusTransaction.requiringNew().call(() -> (Object[]) deliveryRepository.getEntityManager()
                .createNativeQuery("select count(*), coalesce(sum(d.attempts), 0) from event_delivery d"
                        + " join event e on e.id = d.event_id where e.pipeline_name = :p and d.status = 'DELIVERED'")
                .setParameter("p", pipeline).getSingleResult());
        return new long[]{((Number) row[0]).longValue(), ((Number) row[1]).longValue()};
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aPipelineWhoseTargetEchoesTheSameStateRaisesStateNotAdvancingAfterNRuns() {
        // the test tap emits the same bookmark {"items": {"id": 3}} on every run; the target echoes it
        String p = pipeline(Map.of("records", 3, "state_every", 3), Map.of(), Map.of());
        String path = "/stuck/" + p;
        String hook = webhook(path, List.of("state.not_advancing"), List.of(p), "json");
        json().body(Map.of("notAdvancingRuns", 2)).put("/api/v1/pipelines/" + p + "/state-checks").then()
                .statusCode(200).body("notAdvancingRuns", equalTo(2)).body("effectiveNotAdvancingRuns", equalTo(2));

        // run 1 sets the first bookmark (advances); run 2 is the first unchanged run
        for (int i = 0; i < 2; i++) {
            awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"))
                    .body("stateWarnings", empty());
        }
        // run 3: the second unchanged run in a row = N
        String third = trigger(p, Map.of());
        awaitEnd(third, WAIT).then().body("status", equalTo("SUCCEEDED"))
                .body("stateWarnings.type", equalTo(List.of("state.not_advancing")))
                .body("warnings", hasItem(containsString("did not change over the last 2 successful run(s)")));
        await().atMost(WAIT).until(() -> "DELIVERED".equals(deliveries(hook).getString("items[0].status")));
        JsonPath events = json().queryParam("pipeline", p).queryParam("type", "state.not_advancing")
                .get("/api/v1/events").jsonPath();
        assertEquals(1, events.getList("items").size());
        assertEquals(third, events.getString("items[0].runId"));
        assertEquals(2, events.getInt("items[0].payload.data.unchangedRuns"));
        assertTrue(events.getString("items[0].payload.data.stateId").contains(":"));

        // run 4: still not advancing, warned on the run, but no second event for the same streak
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("stateWarnings.type", equalTo(List.of("state.not_advancing")));
        assertEquals(1, json().queryParam("pipeline", p).queryParam("type", "state.not_advancing")
                .get("/api/v1/events").jsonPath().getList("items").size());
        assertEquals(1, ReceiverResource.receiver.at(path).size());
        String metrics = RestAssured.get("/q/metrics").asString();
        assertTrue(metrics.contains("tapline_state_warnings_total{pipeline=\"" + p + "\",type=\"state.not_advancing\"} 2.0"),
                "two runs warned");
    }

    @Test
    void aScheduleThatPausesItselfRecordsPipelinePaused() {
        String p = pipeline(Map.of("records", 1), Map.of("mode", "fail-before-state"),
                Map.of("schedule", Map.of("interval", "@daily", "pauseAfterFailures", 1)));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"));
        await().atMost(WAIT).until(() -> json().queryParam("pipeline", p).queryParam("type", "pipeline.paused")
                .get("/api/v1/events").jsonPath().getList("items").size() == 1);
        json().queryParam("pipeline", p).queryParam("type", "pipeline.paused").get("/api/v1/events").then()
                .body("items[0].runId", equalTo(run))
                .body("items[0].payload.data.consecutiveFailures", equalTo(1))
                .body("items[0].payload.data.reason", containsString("Paused after 1 consecutive failed run"))
                .body("items[0].payload.run.status", equalTo("FAILED"));
    }

    @Test
    void aConfigurationFailureUnderARetryPolicyPausesTheScheduleAndRecordsPipelinePaused() {
        // attempt 1 of 3 fails with a configuration error: never retried, so it is the last attempt
        String p = pipeline(Map.of("token", "${env:TAPLINE_TEST_NEVER_SET}"), Map.of(),
                Map.of("schedule", Map.of("interval", "@daily", "pauseAfterFailures", 1),
                        "retry", Map.of("maxAttempts", 3, "backoffSeconds", 0, "maxBackoffSeconds", 0)));
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("FAILED")).body("attempt", equalTo(1))
                .body("failure.type", equalTo("configuration")).body("failure.retryable", equalTo(false));
        await().atMost(WAIT).until(() -> json().queryParam("pipeline", p).queryParam("type", "pipeline.paused")
                .get("/api/v1/events").jsonPath().getList("items").size() == 1);
        json().queryParam("pipeline", p).queryParam("type", "pipeline.paused").get("/api/v1/events").then()
                .body("items[0].runId", equalTo(run))
                .body("items[0].payload.data.consecutiveFailures", equalTo(1))
                .body("items[0].payload.data.reason", containsString("Paused after 1 consecutive failed run"));
        json().get("/api/v1/pipelines/" + p + "/schedule").then().statusCode(200).body("enabled", equalTo(false));
        assertEquals(1, json().queryParam("pipeline", p).get("/api/v1/runs").jsonPath().getList("items").size(),
                "no retry of a configuration failure");
    }

    @Test
    void aCancelledRunRecordsRunCancelledWithTheReasonAndAnOpenLineageAbort() throws Exception {
        String p = pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        String run = trigger(p, Map.of());
        await().atMost(WAIT).until(() -> "RUNNING".equals(json().get("/api/v1/runs/" + run).jsonPath().getString("status")));
        json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        awaitEnd(run, WAIT).then().body("status", equalTo("CANCELLED"));
        json().queryParam("pipeline", p).get("/api/v1/events").then()
                .body("items.type", equalTo(List.of("run.cancelled")))
                .body("items[0].payload.run.reason", containsString("cancelled by"));
        List<JsonNode> lineage = lineage(run, 2);
        assertEquals("ABORT", lineage.get(1).path("eventType").asText());
    }

    @Inject
    io.tapline.run.RunMonitor monitor;

    @Test
    void aRunReapedForALostHeartbeatRecordsRunFailedFromTheService() throws Exception {
        java.util.UUID stale = java.util.UUID.randomUUID();
        String ghost = "ghost-" + System.nanoTime();
        try (java.sql.Connection c = io.tapline.support.TestDatabase.connect(); java.sql.PreparedStatement ps = c.prepareStatement(
                "insert into pipeline_run (id, pipeline_name, state_id, trigger, status, owner_instance, started_at,"
                        + " last_heartbeat_at) values (?, ?, ?, 'API', 'RUNNING', 'dead-replica',"
                        + " now() - interval '10 minutes', now() - interval '5 minutes')")) {
            ps.setObject(1, stale);
            ps.setString(2, ghost);
            ps.setString(3, "ghost:" + stale);
            ps.executeUpdate();
        }
        // this sweep or the scheduled one reaps it (a concurrent sweep waits for the other's commit)
        monitor.reap(java.time.Instant.now());
        json().queryParam("pipeline", ghost).get("/api/v1/events").then()
                .body("items.type", equalTo(List.of("run.failed")))
                .body("items[0].runId", equalTo(stale.toString()))
                .body("items[0].payload.run.failure.component", equalTo("service"))
                .body("items[0].payload.run.failure.origin", equalTo("service"))
                .body("items[0].payload.run.failure.reason", equalTo(io.tapline.run.RunMonitor.HEARTBEAT_LOST));
        // a second sweep (another replica) records nothing more
        monitor.reap(java.time.Instant.now());
        json().queryParam("pipeline", ghost).get("/api/v1/events").then().body("items.size()", equalTo(1));
    }

    @Test
    void openLineageEventsReachTheReceiverAndValidateAgainstTheSchema() throws Exception {
        JsonSchema schema;
        try (InputStream in = getClass().getResourceAsStream("/openlineage/OpenLineage.json")) {
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in,
                    SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build());
        }
        String ok = pipeline(Map.of("records", 2, "state_every", 2), Map.of(), Map.of());
        String okRun = trigger(ok, Map.of());
        awaitEnd(okRun, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String bad = pipeline(Map.of("records", 2, "state_every", 2), Map.of("mode", "fail-before-state"), Map.of());
        String badRun = trigger(bad, Map.of());
        awaitEnd(badRun, WAIT).then().body("status", equalTo("FAILED"));

        List<JsonNode> okEvents = lineage(okRun, 2);
        List<JsonNode> badEvents = lineage(badRun, 2);
        for (JsonNode e : concat(okEvents, badEvents)) {
            Set<ValidationMessage> errors = schema.validate(e);
            assertTrue(errors.isEmpty(), errors + " in " + e);
        }
        // the schema does reject a broken event: without its eventTime, or with a run id that is no UUID
        com.fasterxml.jackson.databind.node.ObjectNode broken = okEvents.get(0).deepCopy();
        broken.remove("eventTime");
        assertTrue(!schema.validate(broken).isEmpty(), "the validator checks required fields");
        com.fasterxml.jackson.databind.node.ObjectNode badId = okEvents.get(0).deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) badId.get("run")).put("runId", "not-a-uuid");
        assertTrue(!schema.validate(badId).isEmpty(), "the validator checks formats");
        assertEquals(List.of("START", "COMPLETE"), okEvents.stream().map(e -> e.path("eventType").asText()).toList());
        assertEquals(List.of("START", "FAIL"), badEvents.stream().map(e -> e.path("eventType").asText()).toList());
        JsonNode complete = okEvents.get(1);
        assertEquals("tapline-test", complete.path("job").path("namespace").asText());
        assertEquals(ok, complete.path("job").path("name").asText());
        assertEquals("items", complete.path("inputs").get(0).path("name").asText());
        String extractor = json().get("/api/v1/pipelines/" + ok).jsonPath().getString("extractor");
        assertEquals(extractor.replace('-', '_'), complete.path("inputs").get(0).path("namespace").asText());
        assertEquals("items", complete.path("outputs").get(0).path("name").asText());
        assertTrue(badEvents.get(1).path("run").path("facets").path("errorMessage").path("message").asText()
                .contains("Loader failed"), badEvents.get(1).toString());
    }

    /** The OpenLineage events the receiver got for a run, in arrival order, once there are {@code n}. */
    private static List<JsonNode> lineage(String runId, int n) {
        List<JsonNode> out = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            out.clear();
            for (Receiver.Request r : ReceiverResource.receiver.at(ReceiverResource.LINEAGE_PATH)) {
                JsonNode e = JSON.readTree(r.body());
                if (runId.equals(e.path("run").path("runId").asText())) {
                    out.add(e);
                }
            }
            return out.size() >= n;
        });
        return out;
    }

    private static List<JsonNode> concat(List<JsonNode> a, List<JsonNode> b) {
        List<JsonNode> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
