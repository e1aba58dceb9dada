package io.tapline.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.tapline.common.json.Jsons;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every request body example of {@code /q/openapi} does what Swagger UI's "Try it out" does with
 * it: sent as it is (a JSON media type's example is the JSON value of the body, as OpenAPI defines
 * it; another media type's is the body text), it is accepted (2xx), and a GET of the resource shows
 * the example's values, so that no example stores something other than what it shows (a bookmark
 * value in quotes, for one). The fixture is the examples' own names ({@code tap-csv},
 * {@code target-jsonl}, {@code people}, {@code daily-csv}) and one state ID of this test.
 */
@QuarkusTest
class OpenApiExamplesTest {

    /** Operations whose examples are sent, in the order they are sent (each may use what the earlier made). */
    private static final List<String> ORDER = List.of("importProject", "importProjectColon", "createPlugin",
            "patchPlugin", "putPluginEnvironment", "createPipeline", "patchPipeline", "setState", "putBookmark", "putBookmarkKey",
            "importStates");

    /** Operations whose examples are not sent, with the reason. */
    private String stateId;

    private static final Map<String, String> NOT_SENT = Map.of(
            "triggerRun", "each example queues a real run of the example pipeline, whose tap-csv and target-jsonl"
                    + " are not installed here, and the second would meet the first still active (409); the bodies"
                    + " {} and {fullRefresh: true} are covered by the run tests");

    /** One example of one request body. */
    private record Example(String operationId, String method, String path, String mediaType, String name,
                           JsonNode value) {

        boolean json() {
            return mediaType.contains("json");
        }

        /** The body Swagger UI sends: the JSON of the value for a JSON media type, else the text itself. */
        byte[] body() {
            return (json() ? Jsons.write(value) : value.asText()).getBytes(StandardCharsets.UTF_8);
        }
    }

    @Test
    void everyRequestBodyExampleIsAcceptedAndRoundTrips() {
        List<Example> examples = examples();
        Set<String> unplaced = new TreeSet<>();
        examples.stream().map(Example::operationId).filter(o -> !ORDER.contains(o) && !NOT_SENT.containsKey(o))
                .forEach(unplaced::add);
        assertTrue(unplaced.isEmpty(), "Examples of these operations are neither sent nor listed in NOT_SENT: "
                + unplaced);
        Set<String> sent = new TreeSet<>();
        examples.stream().map(Example::operationId).filter(ORDER::contains).forEach(sent::add);
        assertEquals(new TreeSet<>(ORDER), sent, "operations in ORDER that have no example any more");

        clean();
        stateId = unique("dev:examples");
        for (String op : ORDER) {
            for (Example e : examples) {
                if (e.operationId().equals(op)) {
                    prepare(op);
                    String path = fill(e.path(), op, stateId);
                    Response r = RestAssured.given().header("Authorization", Tokens.bearer(Tokens.admin()))
                            .contentType(e.mediaType()).accept("application/json").body(e.body())
                            .request(e.method(), path);
                    int status = r.statusCode();
                    assertTrue(status >= 200 && status < 300, e.method() + " " + path + " with example '" + e.name()
                            + "' answered " + status + ": " + r.asString());
                    roundTrip(e, path);
                }
            }
        }
    }

    @Test
    void noJsonExampleIsJsonEncodedTwice() {
        List<String> twice = new ArrayList<>();
        for (Example e : examples()) {
            if (e.json() && e.value().isTextual()) {
                String text = e.value().asText().trim();
                if (text.startsWith("\"") || text.startsWith("{") || text.startsWith("[")) {
                    twice.add(e.operationId() + " '" + e.name() + "': " + e.value());
                }
            }
        }
        assertEquals(List.of(), twice, "a JSON example that is the JSON text of a value is sent as a string"
                + " holding that text");
    }

    /** Every request body example of the document: each content's {@code example} and {@code examples} entries. */
    private static List<Example> examples() {
        JsonNode doc = Jsons.read(RestAssured.given().accept("application/json").get("/q/openapi?format=json").then()
                .statusCode(200).extract().asString());
        List<Example> out = new ArrayList<>();
        doc.path("paths").fields().forEachRemaining(p -> p.getValue().fields().forEachRemaining(m -> {
            JsonNode content = m.getValue().path("requestBody").path("content");
            String op = m.getValue().path("operationId").asText(m.getKey() + " " + p.getKey());
            content.fields().forEachRemaining(c -> {
                if (c.getValue().has("example")) {
                    out.add(new Example(op, m.getKey().toUpperCase(java.util.Locale.ROOT), p.getKey(), c.getKey(),
                            "example", c.getValue().get("example")));
                }
                c.getValue().path("examples").fields().forEachRemaining(x -> out.add(new Example(op,
                        m.getKey().toUpperCase(java.util.Locale.ROOT), p.getKey(), c.getKey(), x.getKey(),
                        x.getValue().path("value"))));
            });
        }));
        return out;
    }

    /**
     * Removes what the examples make (before: left by an earlier run against the same database;
     * after: so that the other test classes of this application, which export and import every
     * plugin, never meet the examples' fixed names).
     */
    @AfterEach
    void clean() {
        for (String p : List.of("/api/v1/pipelines/people", "/api/v1/pipelines/daily-csv",
                "/api/v1/plugins/extractors/tap-csv", "/api/v1/plugins/loaders/target-jsonl")) {
            json().delete(p).then().statusCode(org.hamcrest.Matchers.oneOf(204, 404));
        }
        for (String id : new String[] {stateId, "dev:tap-csv-to-target-jsonl"}) {
            if (id != null) {
                json().delete("/api/v1/states/" + id).then().statusCode(org.hamcrest.Matchers.oneOf(204, 404));
            }
        }
    }

    /**
     * What an operation's example needs beyond what the earlier examples made (the bookmark examples
     * use the state ID and stream {@code people} that setState's example made).
     */
    private static void prepare(String op) {
        if (op.equals("createPlugin")) {
            // The import examples made tap-csv and a pipeline on it; the create example makes it anew.
            json().delete("/api/v1/pipelines/daily-csv").then().statusCode(204);
            json().delete("/api/v1/plugins/extractors/tap-csv").then().statusCode(204);
        }
    }

    /** The path with its parameters: plugins are extractors/tap-csv, the pipeline people, the state this test's. */
    private static String fill(String template, String op, String stateId) {
        String name = op.contains("Pipeline") ? "people" : "tap-csv";
        return template.replace("{type}", "extractors").replace("{name}", name).replace("{stateId}", stateId)
                .replace("{stream}", "people").replace("{key}", "updated_at").replace("{environment}", "prod");
    }

    /** The GET of what the example wrote shows the example's values. */
    private static void roundTrip(Example e, String path) {
        switch (e.operationId()) {
            case "importProject", "importProjectColon" -> {
                // The example's meltano.yml: tap-csv, target-jsonl and the schedule daily-csv.
                contains(e, Jsons.read("{\"executable\": \"tap-csv\"}"), get("/api/v1/plugins/extractors/tap-csv"));
                contains(e, Jsons.read("{\"executable\": \"target-jsonl\"}"),
                        get("/api/v1/plugins/loaders/target-jsonl"));
                contains(e, Jsons.read("{\"extractor\": \"tap-csv\", \"loader\": \"target-jsonl\","
                        + " \"schedule\": {\"interval\": \"@daily\"}}"), get("/api/v1/pipelines/daily-csv"));
            }
            case "createPlugin" -> contains(e, masked(e.value()), get(path + "/tap-csv"));
            case "createPipeline" -> contains(e, e.value(), get(path + "/people"));
            case "patchPlugin", "putPluginEnvironment", "patchPipeline", "setState" -> contains(e, e.value(), get(path));
            case "putBookmark", "putBookmarkKey" -> {
                JsonNode stored = get(path);
                assertEquals(e.value(), stored, e.operationId() + " '" + e.name() + "' stored another value");
                assertTrue(!stored.isTextual() || !stored.asText().startsWith("\""),
                        e.operationId() + " stored a value in quotes: " + stored);
            }
            case "importStates" -> e.value().fields().forEachRemaining(s -> contains(e, s.getValue().get("completed"),
                    get("/api/v1/states/" + s.getKey())));
            default -> fail("no round-trip check for " + e.operationId());
        }
    }

    /** The example as a GET shows it: the values of its {@code sensitive} config keys masked. */
    private static JsonNode masked(JsonNode example) {
        ObjectNode out = example.deepCopy();
        for (JsonNode s : example.path("sensitive")) {
            if (out.path("config").has(s.asText())) {
                ((ObjectNode) out.get("config")).put(s.asText(), "********");
            }
        }
        return out;
    }

    private static JsonNode get(String path) {
        return Jsons.read(json().get(path).then().statusCode(200).extract().asString());
    }

    /** {@code actual} holds every member of {@code expected} with its value (objects member by member). */
    private static void contains(Example e, JsonNode expected, JsonNode actual) {
        List<String> missing = new ArrayList<>();
        contains("", expected, actual, missing);
        assertEquals(List.of(), missing, e.operationId() + " '" + e.name() + "' does not round-trip; GET shows "
                + actual);
    }

    private static void contains(String at, JsonNode expected, JsonNode actual, List<String> missing) {
        if (expected.isObject() && actual != null && actual.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = expected.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> f = it.next();
                contains(at + "/" + f.getKey(), f.getValue(), actual.get(f.getKey()), missing);
            }
        } else if (actual == null || !(expected.isNumber() && actual.isNumber()
                ? expected.decimalValue().compareTo(actual.decimalValue()) == 0 : expected.equals(actual))) {
            missing.add(at + " = " + expected + " (is " + actual + ")");
        }
    }
}
