package io.tapline.state;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import io.tapline.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;

import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The bookmark endpoints on every shape of stored state: a bookmark is read from the completed
 * text alone when the partial side is empty and from the merged trees otherwise, and a bookmark
 * edit stores exactly what the general write would store, with its history row and audit event.
 * {@link StateBookmarksWithoutMirrorTest} runs the same tests without the file mirror.
 */
@QuarkusTest
class StateBookmarksTest {

    static RequestSpecification req() {
        return RestAssured.given().contentType("application/json").accept("application/json")
                .header("Authorization", io.tapline.support.Tokens.bearer(io.tapline.support.Tokens.admin()));
    }

    static String id() {
        return "dev:" + unique("tap") + "-to-target-b";
    }

    private static String bookmarks(String id) {
        return "/api/v1/states/" + id + "/bookmarks/";
    }

    /** One column of the newest history row of a state ID. */
    private static String lastHistory(String id, String column) throws Exception {
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement("select " + column
                + " from singer_state_version where state_id = ? order by version desc limit 1")) {
            ps.setString(1, id);
            try (ResultSet r = ps.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    private static int count(String sql, String id) throws Exception {
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, id);
            try (ResultSet r = ps.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    @Test
    void aBookmarkIsReadFromTheMergedStateWhetherOrNotThePartialSideIsEmpty() {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"rk\": \"updated_at\", \"v\": 1.5e20}, \"n\": null,"
                + " \"t\": {\"v\": \"caf\\u00e9\"}}}}").put("/api/v1/states/" + id).then().statusCode(200);
        req().get(bookmarks(id) + "s").then().statusCode(200).header("ETag", "\"1\"")
                .body(equalTo("{\"rk\":\"updated_at\",\"v\":1.5e+20}\n"));
        req().get(bookmarks(id) + "s/v").then().statusCode(200).body(equalTo("1.5e+20\n"));
        req().get(bookmarks(id) + "n").then().statusCode(200).body(equalTo("null\n"));
        req().get(bookmarks(id) + "t").then().statusCode(200).body(equalTo("{\"v\":\"caf\\u00e9\"}\n"));
        problem(req().get(bookmarks(id) + "n/v").then(), 404, "not-found");
        problem(req().get(bookmarks(id) + "u").then(), 404, "not-found");
        problem(req().get(bookmarks(id()) + "s").then(), 404, "not-found");

        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 2}, \"u\": {\"v\": 3}}}}")
                .post("/api/v1/states/" + id + ":merge").then().statusCode(200);
        req().get(bookmarks(id) + "s").then().statusCode(200).header("ETag", "\"2\"")
                .body(equalTo("{\"rk\":\"updated_at\",\"v\":2}\n"));
        req().get(bookmarks(id) + "u/v").then().statusCode(200).body(equalTo("3\n"));
        req().get(bookmarks(id) + "t").then().statusCode(200).body(equalTo("{\"v\":\"caf\\u00e9\"}\n"));
    }

    @Test
    void aBookmarkUnderAStateThatCannotBeMergedIs409() throws Exception {
        String id = id();
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement("insert into"
                + " singer_state (state_id, completed, partial, version) values (?, ?, ?, 1)")) {
            ps.setString(1, id);
            ps.setString(2, "{\"singer_state\": {\"bookmarks\": 5}}");
            ps.setString(3, "{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}");
            ps.executeUpdate();
        }
        problem(req().get(bookmarks(id) + "s").then(), 409, "state-conflict");
        problem(req().body("{\"v\": 2}").put(bookmarks(id) + "s").then(), 409, "state-conflict");
    }

    @Test
    void aBookmarkEditStoresTheStateCompleteAndRecordsBothSidesBeforeIt() throws Exception {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}, \"currently_syncing\": \"s\"}, \"x\": 1}")
                .put("/api/v1/states/" + id).then().statusCode(200);
        req().body("{\"singer_state\": {\"bookmarks\": {\"t\": {\"v\": 2}}}}")
                .post("/api/v1/states/" + id + ":merge").then().statusCode(200);
        req().body("{\"v\": 3, \"k\": [1, 2.0]}").put(bookmarks(id) + "s").then().statusCode(200)
                .header("ETag", "\"3\"").body(equalTo("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":3,\"k\":[1,2.0]},"
                        + "\"t\":{\"v\":2}},\"currently_syncing\":\"s\"},\"x\":1}\n"));
        assertEquals("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}, \"currently_syncing\": \"s\"}, \"x\": 1}",
                lastHistory(id, "completed_before"));
        assertEquals("{\"singer_state\": {\"bookmarks\": {\"t\": {\"v\": 2}}}}", lastHistory(id, "partial_before"));
        assertEquals("{}", lastHistory(id, "partial_after"));

        // now the partial side is empty: the next edit works on the completed text
        req().body("4").put(bookmarks(id) + "t/v").then().statusCode(200).header("ETag", "\"4\"")
                .body(equalTo("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":3,\"k\":[1,2.0]},\"t\":{\"v\":4}},"
                        + "\"currently_syncing\":\"s\"},\"x\":1}\n"));
        assertEquals("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 3, \"k\": [1, 2.0]}, \"t\": {\"v\": 2}},"
                + " \"currently_syncing\": \"s\"}, \"x\": 1}", lastHistory(id, "completed_before"));
        assertEquals("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 3, \"k\": [1, 2.0]}, \"t\": {\"v\": 4}},"
                + " \"currently_syncing\": \"s\"}, \"x\": 1}", lastHistory(id, "completed_after"));
        assertEquals("{}", lastHistory(id, "partial_before"));
        req().get("/api/v1/states/" + id).then().statusCode(200).header("ETag", "\"4\"");
        req().get("/api/v1/states").then().statusCode(200);
        assertEquals(1, count("select count(*) from singer_state where list_status = 'ok' and state_id = ?", id));
        req().queryParam("target", id).queryParam("action", "state.bookmark").get("/api/v1/audit").then()
                .statusCode(200).body("items.size()", equalTo(2))
                .body("items[0].details.stream", equalTo("t")).body("items[0].details.key", equalTo("v"))
                .body("items[0].details.version", equalTo(4)).body("items[0].details.source", equalTo("STATE_EDIT"));
    }

    @Test
    void aBookmarkOfAnUnknownStateIdCreatesItAndIfMatchIsHonoured() throws Exception {
        String id = id();
        problem(req().header("If-Match", "*").body("{\"v\": 1}").put(bookmarks(id) + "s").then(), 412,
                "precondition-failed");
        req().header("If-Match", "\"0\"").body("{\"v\": 1}").put(bookmarks(id) + "s").then().statusCode(200)
                .header("ETag", "\"1\"").body(equalTo("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1}}}}\n"));
        assertEquals(null, lastHistory(id, "completed_before"));
        assertEquals(null, lastHistory(id, "partial_before"));
        problem(req().header("If-Match", "\"0\"").body("{\"v\": 2}").put(bookmarks(id) + "s").then(), 412,
                "precondition-failed");
        req().header("If-Match", "\"1\"").body("{\"v\": 2}").put(bookmarks(id) + "s").then().statusCode(200)
                .header("ETag", "\"2\"");
    }

    @Test
    void concurrentEditsOfDifferentBookmarksAreAllKept() throws Exception {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {}}}").put("/api/v1/states/" + id).then().statusCode(200);
        int n = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(n);
        java.util.List<java.util.concurrent.Callable<Integer>> puts = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            puts.add(() -> req().body("{\"v\": " + k + "}").put(bookmarks(id) + "s" + k).statusCode());
        }
        for (java.util.concurrent.Future<Integer> f : pool.invokeAll(puts)) {
            assertEquals(200, f.get());
        }
        pool.shutdown();
        for (int i = 0; i < n; i++) {
            req().get(bookmarks(id) + "s" + i).then().statusCode(200).body(equalTo("{\"v\":" + i + "}\n"));
        }
        req().get("/api/v1/states/" + id).then().statusCode(200).header("ETag", "\"" + (n + 1) + "\"");
        assertEquals(n + 1, count("select count(distinct version) from singer_state_version where state_id = ?", id));
    }

    @Test
    void writingTheStoredValueAgainMakesNoVersionAndNoAuditEvent() throws Exception {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}").put("/api/v1/states/" + id).then()
                .statusCode(200);
        req().body("{\"v\": 2}").put(bookmarks(id) + "s").then().statusCode(200).header("ETag", "\"2\"");
        req().body("{\"v\": 2}").put(bookmarks(id) + "s").then().statusCode(200).header("ETag", "\"2\"")
                .body(equalTo("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":2}}}}\n"));
        assertEquals(2, count("select count(*) from singer_state_version where state_id = ?", id));
        assertEquals(1, count("select count(*) from audit_event where action = 'state.bookmark' and target = ?", id));
    }

    @Test
    void aBookmarkEditIsRefusedWhileARunIsActiveUnlessForcedAndNeverUnderANonObject() throws Exception {
        String id = id();
        req().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}, \"x\": [1]}}").put("/api/v1/states/" + id)
                .then().statusCode(200);
        UUID run = UUID.randomUUID();
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                // RUNNING, not QUEUED: the dispatcher would claim a QUEUED run of no pipeline and end it at once
                "insert into pipeline_run (id, pipeline_name, state_id, trigger, status) values (?, 'p', ?, 'API', 'RUNNING')")) {
            ps.setObject(1, run);
            ps.setString(2, id);
            ps.executeUpdate();
        }
        try {
            problem(req().body("{\"v\": 2}").put(bookmarks(id) + "s").then(), 409, "run-active")
                    .body("activeRunId", equalTo(run.toString()));
            // A flag is true or false: "yes" is refused, not read as "not forced".
            problem(req().queryParam("force", "yes").body("{\"v\": 2}").put(bookmarks(id) + "s").then(), 400,
                    "validation").body("errors[0].field", equalTo("force"));
            req().queryParam("force", "true").body("{\"v\": 2}").put(bookmarks(id) + "s").then().statusCode(200)
                    .header("ETag", "\"2\"");
            // The audit trail says the edit was forced over that run.
            req().queryParam("target", id).queryParam("action", "state.bookmark").get("/api/v1/audit").then()
                    .statusCode(200).body("items[0].details.force", equalTo(true))
                    .body("items[0].details.activeRunId", equalTo(run.toString()));
        } finally {
            try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement(
                    "update pipeline_run set status = 'FAILED' where state_id = ?")) {
                ps.setString(1, id);
                ps.executeUpdate();
            }
        }
        req().body("{\"singer_state\": {\"bookmarks\": [1]}}").put("/api/v1/states/" + id).then().statusCode(200);
        problem(req().body("{\"v\": 1}").put(bookmarks(id) + "s").then(), 409, "state-conflict");
        assertEquals(3, count("select version from singer_state where state_id = ?", id));
    }
}
