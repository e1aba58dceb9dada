package io.tapline.state;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.tapline.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class StateResourceTest {

    private static io.restassured.specification.RequestSpecification req() {
        return RestAssured.given().contentType("application/json").accept("application/json")
                .header("Authorization", io.tapline.support.Tokens.bearer(io.tapline.support.Tokens.admin()));
    }

    private static String get(String id) {
        return req().get("/api/v1/states/" + id).then().statusCode(200).extract().asString();
    }

    private static String id() {
        return "dev:" + unique("tap") + "-to-target-x";
    }

    @Test
    void setThenGetRoundTripsByteForByteAsMeltanoPrintsIt() {
        String id = id();
        String input = "{\"singer_state\": {\"x\": \"caf\\u00e9 \\ud83d\\ude00\", \"f\": 1e16, \"g\": 1e-05, \"h\": 100000.0,"
                + " \"n\": NaN, \"big\": 123456789012345678901234567890, \"list\": [1, 2.5, null, true]}}";
        req().body(input).put("/api/v1/states/" + id).then().statusCode(200).header("ETag", "\"1\"");
        assertEquals("{\"singer_state\":{\"x\":\"caf\\u00e9 \\ud83d\\ude00\",\"f\":1e+16,\"g\":1e-05,\"h\":100000.0,"
                + "\"n\":NaN,\"big\":123456789012345678901234567890,\"list\":[1,2.5,null,true]}}\n", get(id));
        // what get prints, set accepts, and the bytes stay the same (meltano's test_get_set_roundtrip)
        String printed = get(id);
        req().body(printed).put("/api/v1/states/" + id).then().statusCode(200);
        assertEquals(printed, get(id));
    }

    @Test
    void unknownStateIdPrintsEmptyObject() {
        req().get("/api/v1/states/" + id()).then().statusCode(200).header("ETag", "\"0\"").body(equalTo("{}\n"));
    }

    @Test
    void theMergeExampleOfTheSpecProducesTheMergedBytes() {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 1, \"rk\": \"x\"}, \"b\": {\"v\": 1}}, \"currently_syncing\": \"b\"}}")
                .put("/api/v1/states/" + id).then().statusCode(200);
        req().body("{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 2}}, \"currently_syncing\": null}}")
                .post("/api/v1/states/" + id + ":merge").then().statusCode(200);
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":2,\"rk\":\"x\"},\"b\":{\"v\":1}},\"currently_syncing\":null}}\n",
                get(id));
        req().queryParam("view", "split").get("/api/v1/states/" + id).then().statusCode(200).body(equalTo(
                "{\"completed\":{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":1,\"rk\":\"x\"},\"b\":{\"v\":1}},\"currently_syncing\":\"b\"}},"
                        + "\"partial\":{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":2}},\"currently_syncing\":null}}}\n"));
    }

    @Test
    void validationMatchesMeltano() {
        String id = id();
        problem(req().body("{\"bookmarks\": {}}").put("/api/v1/states/" + id).then(), 400, "validation")
                .body("errors[0].field", equalTo("singer_state"));
        problem(req().body("{\"singer_state\": ").put("/api/v1/states/" + id).then(), 400, "malformed-body");
        problem(req().body("").put("/api/v1/states/" + id).then(), 400, "malformed-body");
        problem(req().body("{\"x\": 1}").post("/api/v1/states/" + id + ":merge").then(), 400, "validation");
        // ill-formed UTF-8 is refused, not stored as U+FFFD (Python's json.loads(bytes) fails too)
        byte[] latin1 = "{\"singer_state\": {\"bookmarks\": {\"s\": {\"name\": \"caf\u00e9\"}}}}"
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        problem(req().body(latin1).put("/api/v1/states/" + id).then(), 400, "malformed-body")
                .body("detail", containsString("not valid UTF-8"));
        problem(req().body(new byte[] {'{', '"', 'v', '"', ':', '"', (byte) 0xC3, '"', '}'})
                .put("/api/v1/states/" + id + "/bookmarks/s").then(), 400, "malformed-body");
        assertEquals("{}\n", get(id), "nothing was stored");
        // --no-validate stores extra keys as given
        req().queryParam("validate", "false").body("{\"bookmarks\": {\"s\": 1}}").put("/api/v1/states/" + id).then().statusCode(200);
        assertEquals("{\"bookmarks\":{\"s\":1}}\n", get(id));
        // set --no-validate '{}' changes nothing (Meltano quirk)
        req().queryParam("validate", "false").body("{}").put("/api/v1/states/" + id).then().statusCode(200);
        assertEquals("{\"bookmarks\":{\"s\":1}}\n", get(id));
    }

    @Test
    void typeConflictInAMergeIsA409AndNothingChanges() {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": 5}}").post("/api/v1/states/" + id + ":merge").then().statusCode(200);
        problem(req().body("{\"singer_state\": {\"bookmarks\": {\"a\": 1}}}").post("/api/v1/states/" + id + ":merge").then(),
                409, "state-conflict").body("path", equalTo("singer_state.bookmarks"));
        assertEquals("{\"singer_state\":{\"bookmarks\":5}}\n", get(id));
    }

    @Test
    void copyMoveAndClear() {
        String a = id();
        String b = id();
        String c = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}").put("/api/v1/states/" + a).then().statusCode(200);
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"w\": 2}}}}").post("/api/v1/states/" + a + ":merge").then().statusCode(200);
        // an action's body is read strictly: a key given twice, or one the action does not take, is refused
        problem(req().body("{\"to\": \"" + c + "\", \"to\": \"" + b + "\"}").post("/api/v1/states/" + a + ":copy").then(),
                400, "malformed-body").body("detail", containsString("Duplicate field 'to'"));
        problem(req().body("{\"to\": \"" + b + "\", \"force\": true}").post("/api/v1/states/" + a + ":copy").then(),
                400, "validation").body("errors[0].field", equalTo("force"));
        problem(req().body("{\"to\": \"" + b + "\"} {\"x\": 1}").post("/api/v1/states/" + a + ":copy").then(), 400,
                "malformed-body");
        problem(req().body("{\"to\": 5}").post("/api/v1/states/" + a + ":copy").then(), 400, "validation")
                .body("errors[0].message", containsString("must be a state ID (a string)"));
        assertEquals("{}\n", get(b));
        req().body("{\"to\": \"" + b + "\"}").post("/api/v1/states/" + a + ":copy").then().statusCode(200);
        // the destination gets completed = merged source, partial = {}
        req().queryParam("view", "split").get("/api/v1/states/" + b).then().body(equalTo(
                "{\"completed\":{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1,\"w\":2}}}},\"partial\":{}}\n"));
        req().body("{\"to\": \"" + c + "\"}").post("/api/v1/states/" + b + ":move").then().statusCode(200);
        assertEquals("{}\n", get(b));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1,\"w\":2}}}}\n", get(c));
        // copy from a missing source fails validation, as in Meltano
        problem(req().body("{\"to\": \"" + a + "\"}").post("/api/v1/states/" + id() + ":copy").then(), 400, "validation");
        req().delete("/api/v1/states/" + c).then().statusCode(204);
        assertEquals("{}\n", get(c));
        problem(req().delete("/api/v1/states").then(), 400, "validation").body("errors[0].field", equalTo("confirm"));
    }

    @Test
    void historyRecordsEveryEditAndRollbackRestoresAndIsRecorded() {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}").put("/api/v1/states/" + id).then().statusCode(200);
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 2}}}}").put("/api/v1/states/" + id).then().statusCode(200);
        req().delete("/api/v1/states/" + id).then().statusCode(204);
        Response h = req().get("/api/v1/states/" + id + "/history");
        h.then().statusCode(200)
                .body("items.size()", equalTo(3))
                .body("items[0].version", equalTo(3)).body("items[0].action", equalTo("clear"))
                .body("items[0].after", nullValue())
                .body("items[1].source", equalTo("STATE_EDIT")).body("items[1].actor", equalTo(io.tapline.support.Tokens.ADMIN_SUBJECT))
                .body("items[1].before.completed.singer_state.bookmarks.s.v", equalTo(1))
                .body("items[1].after.completed.singer_state.bookmarks.s.v", equalTo(2))
                .body("items[2].before", nullValue());
        req().body("{\"version\": 1}").post("/api/v1/states/" + id + ":rollback").then().statusCode(200)
                .header("ETag", "\"4\"");
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1}}}}\n", get(id));
        req().get("/api/v1/states/" + id + "/history").then()
                .body("items[0].source", equalTo("ROLLBACK")).body("items[0].version", equalTo(4));
        problem(req().body("{\"version\": 99}").post("/api/v1/states/" + id + ":rollback").then(), 404, "not-found");
        problem(req().body("{\"version\": 1, \"version\": 2}").post("/api/v1/states/" + id + ":rollback").then(), 400,
                "malformed-body");
    }

    @Test
    void bookmarksAreEditedWithoutDisturbingAnythingElse() {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"users\": {\"replication_key\": \"updated_at\", \"replication_key_value\": \"2024-01-01\"},"
                + " \"orders\": {\"replication_key_value\": 7}}, \"currently_syncing\": null}, \"extra\": 1}")
                .queryParam("validate", "false").put("/api/v1/states/" + id).then().statusCode(200);
        req().get("/api/v1/states/" + id + "/bookmarks/users").then().statusCode(200)
                .body(equalTo("{\"replication_key\":\"updated_at\",\"replication_key_value\":\"2024-01-01\"}\n"));
        req().get("/api/v1/states/" + id + "/bookmarks/orders/replication_key_value").then().body(equalTo("7\n"));
        req().body("\"2024-06-01\"").put("/api/v1/states/" + id + "/bookmarks/users/replication_key_value").then().statusCode(200);
        req().body("{\"replication_key_value\": 1}").put("/api/v1/states/" + id + "/bookmarks/new").then().statusCode(200);
        req().delete("/api/v1/states/" + id + "/bookmarks/orders").then().statusCode(200);
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"users\":{\"replication_key\":\"updated_at\",\"replication_key_value\":\"2024-06-01\"},"
                + "\"new\":{\"replication_key_value\":1}},\"currently_syncing\":null},\"extra\":1}\n", get(id));
        problem(req().get("/api/v1/states/" + id + "/bookmarks/orders").then(), 404, "not-found");
        problem(req().delete("/api/v1/states/" + id + "/bookmarks/nope").then(), 404, "not-found");
        problem(req().body("[1]").put("/api/v1/states/" + id + "/bookmarks/users").then(), 400, "malformed-body");
    }

    @Test
    void ifMatchGuardsStateEdits() {
        String id = id();
        req().header("If-Match", "\"0\"").body("{\"singer_state\": {}}").put("/api/v1/states/" + id).then().statusCode(200);
        problem(req().header("If-Match", "\"0\"").body("{\"singer_state\": {\"a\": 1}}").put("/api/v1/states/" + id).then(),
                412, "precondition-failed");
        req().header("If-Match", "\"1\"").body("{\"singer_state\": {\"a\": 1}}").put("/api/v1/states/" + id).then()
                .statusCode(200).header("ETag", "\"2\"");
    }

    @Test
    void concurrentEditorsNeverLoseAnUpdate() throws Exception {
        String id = id();
        int n = 16;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            results.add(pool.submit(() -> req().body("{\"singer_state\": {\"bookmarks\": {\"s" + k + "\": {\"v\": " + k + "}}}}")
                    .post("/api/v1/states/" + id + ":merge").statusCode()));
        }
        for (Future<Integer> f : results) {
            assertEquals(200, f.get());
        }
        String merged = get(id);
        for (int i = 0; i < n; i++) {
            assertTrue(merged.contains("\"s" + i + "\":{\"v\":" + i + "}"), merged);
        }
        // optimistic writers on the same version: exactly one wins
        String etag = req().get("/api/v1/states/" + id).header("ETag");
        List<Callable<Integer>> puts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int k = i;
            puts.add(() -> req().header("If-Match", etag).body("{\"singer_state\": {\"w\": " + k + "}}")
                    .put("/api/v1/states/" + id).statusCode());
        }
        long ok = 0;
        for (Future<Integer> f : pool.invokeAll(puts)) {
            ok += f.get() == 200 ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(1, ok);
        req().get("/api/v1/states/" + id + "/history").then().body("items[0].version", equalTo(n + 1));
    }

    @Test
    void editsAreRefusedWhileARunOfTheStateIdIsActiveUnlessForced() throws Exception {
        String id = id();
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                "insert into pipeline_run (id, pipeline_name, state_id, trigger, status) values (?, 'p', ?, 'API', 'RUNNING')")) {
            ps.setObject(1, UUID.randomUUID());
            ps.setString(2, id);
            ps.executeUpdate();
        }
        problem(req().body("{\"singer_state\": {}}").put("/api/v1/states/" + id).then(), 409, "run-active");
        problem(req().queryParam("force", "1").body("{\"singer_state\": {}}").put("/api/v1/states/" + id).then(), 400,
                "validation").body("errors[0].field", equalTo("force"));
        problem(req().queryParam("validate", "no").body("{}").put("/api/v1/states/" + id).then(), 400, "validation")
                .body("errors[0].field", equalTo("validate"));
        // empty, bare and repeated flags are refused too (the REST layer would read them as absent or as the first)
        problem(req().queryParam("validate", "").body("{}").put("/api/v1/states/" + id).then(), 400, "validation")
                .body("errors[0].field", equalTo("validate"));
        problem(req().urlEncodingEnabled(false).body("{\"singer_state\": {}}").put("/api/v1/states/" + id + "?force")
                .then(), 400, "validation").body("errors[0].field", equalTo("force"));
        problem(req().urlEncodingEnabled(false).body("{\"singer_state\": {}}")
                .put("/api/v1/states/" + id + "?force=false&force=true").then(), 400, "validation")
                .body("errors[0].field", equalTo("force"));
        req().queryParam("force", "true").body("{\"singer_state\": {}}").put("/api/v1/states/" + id).then().statusCode(200);
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                "update pipeline_run set status = 'FAILED' where state_id = ?")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    @Test
    void exportImportRoundTripsTheSplit() {
        String id = id();
        req().body("{\"singer_state\": {\"a\": 1}}").put("/api/v1/states/" + id).then().statusCode(200);
        req().body("{\"singer_state\": {\"b\": 2.0}}").post("/api/v1/states/" + id + ":merge").then().statusCode(200);
        String export = req().get("/api/v1/states:export").then().statusCode(200).extract().asString();
        assertTrue(export.contains("\"" + id + "\":{\"completed\":{\"singer_state\":{\"a\":1}},\"partial\":{\"singer_state\":{\"b\":2.0}}}"));
        String other = id();
        req().body("{\"" + other + "\": {\"completed\": {\"singer_state\": {\"z\": 1}}, \"partial\": null}}")
                .post("/api/v1/states:import").then().statusCode(200).body("imported", equalTo(1));
        assertEquals("{\"singer_state\":{\"z\":1}}\n", get(other));
        req().get("/api/v1/states/" + other + "/history").then().body("items[0].source", equalTo("IMPORT"));
        problem(req().body("[]").post("/api/v1/states:import").then(), 400, "malformed-body");
        problem(req().body("{\"" + id() + "\": 5}").post("/api/v1/states:import").then(), 400, "validation");
        req().queryParam("pattern", "dev:*").queryParam("limit", 500).get("/api/v1/states").then().statusCode(200)
                .body("items.stateId", hasItem(other));
    }

    @Test
    void bodiesOverTheLimitAre413AndNothingIsStored() {
        String id = id();
        String big = "{\"singer_state\": {\"x\": \"" + "a".repeat(16 * 1024 * 1024) + "\"}}";
        problem(req().body(big).put("/api/v1/states/" + id).then(), 413, "payload-too-large");
        assertEquals("{}\n", get(id));
    }

    /** A chunked body has no Content-Length to check first: it is counted while read, and cut at the limit. */
    @Test
    void aChunkedBodyOverTheLimitIsA413ProblemAndNothingIsStored() throws Exception {
        String id = id();
        URI api = URI.create(io.restassured.RestAssured.baseURI + ":" + io.restassured.RestAssured.port);
        String answer;
        try (java.net.Socket s = new java.net.Socket(api.getHost(), api.getPort())) {
            s.setSoTimeout(30_000);
            java.io.OutputStream out = s.getOutputStream();
            out.write(("PUT /api/v1/states/" + id + " HTTP/1.1\r\nHost: tapline\r\nAuthorization: "
                    + io.tapline.support.Tokens.bearer(io.tapline.support.Tokens.admin())
                    + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "10\r\n{\"singer_state\":\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[1 << 20];
            java.util.Arrays.fill(chunk, (byte) ' ');
            // Sent from a thread of its own: a service that stopped reading would block the writes.
            Thread sender = new Thread(() -> {
                try {
                    for (int i = 0; i < 20; i++) { // 20 MiB of blanks: over the 16 MiB limit, under the 32 MiB backstop
                        out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(chunk);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write("2\r\n{}\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (java.io.IOException closed) {
                    // the service answered and closed the connection while the body was still coming
                }
            });
            sender.start();
            // read to the end: the service closes the connection, whose body it will never read
            answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertTrue(answer.contains("application/problem+json") && answer.contains("tapline.state.max-body-bytes"), answer);
        assertEquals("{}\n", get(id));
    }

    @Test
    void realMeltanoStateFilesImportAndExportByteIdentical() throws Exception {
        Path fixtures = Path.of("src/test/resources/meltano-state-backend").toAbsolutePath();
        List<String> ids = new ArrayList<>();
        try (var ds = Files.newDirectoryStream(fixtures)) {
            for (Path p : ds) {
                if (Files.isRegularFile(p.resolve("state.json"))) {
                    ids.add(p.getFileName().toString());
                }
            }
        }
        assertTrue(ids.size() >= 5, ids.toString());
        req().queryParam("force", "true").body("{\"directory\": \"" + fixtures + "\"}")
                .post("/api/v1/states:import-directory").then().statusCode(200);
        req().body("{\"stateIds\": [" + String.join(",", ids.stream().map(i -> "\"" + i + "\"").toList()) + "]}")
                .post("/api/v1/states:export-directory").then().statusCode(200);
        Path mirror = Path.of(org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getValue("tapline.state.mirror-dir", String.class));
        for (String id : ids) {
            byte[] original = Files.readAllBytes(fixtures.resolve(id).resolve("state.json"));
            byte[] exported = Files.readAllBytes(mirror.resolve(id).resolve("state.json"));
            assertEquals(new String(original, StandardCharsets.UTF_8), new String(exported, StandardCharsets.UTF_8), id);
        }
        problem(req().body("{\"directory\": \"/etc\"}").post("/api/v1/states:import-directory").then(), 400, "validation");
    }
}
