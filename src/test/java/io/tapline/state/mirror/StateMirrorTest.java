package io.tapline.state.mirror;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.support.TestStateMirror;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.state;
import static io.tapline.support.Connectors.stateId;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared mirror directory works both ways: what Meltano writes into
 * {@code <mirror-dir>/<state id>/state.json} (lock file, in-place write, as Meltano 4.2.2's
 * local-filesystem backend does) is imported as a MELTANO version before Tapline applies anything
 * on top, and is never overwritten silently. Real files, the real database, real processes.
 */
@QuarkusTest
class StateMirrorTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path MIRROR = TestStateMirror.DIR.toAbsolutePath();

    @Inject
    StateMirrorScanJob scanJob;

    /** Writes state.json as Meltano does: lock file with epoch seconds, truncate and write in place, unlock. */
    static void meltanoWrites(String stateId, String stateJson) throws Exception {
        Path dir = MIRROR.resolve(stateId);
        Files.createDirectories(dir);
        Path lock = dir.resolve("lock");
        Files.writeString(lock, MeltanoBackendDirectory.lockContent(Instant.now()), StandardOpenOption.CREATE_NEW);
        try {
            Files.writeString(dir.resolve("state.json"), stateJson, StandardCharsets.US_ASCII,
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } finally {
            Files.delete(lock);
        }
    }

    static String mirrorFile(String stateId) throws Exception {
        return Files.readString(MIRROR.resolve(stateId).resolve("state.json"));
    }

    static void awaitMirror(String stateId, String expected) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            Path f = MIRROR.resolve(stateId).resolve("state.json");
            return Files.isRegularFile(f) && Files.readString(f).equals(expected);
        });
    }

    static JsonPath history(String stateId) {
        return json().get("/api/v1/states/" + stateId + "/history").then().statusCode(200).extract().jsonPath();
    }

    @Test
    void meltanosNewerBookmarkIsImportedBeforeAnEditAndTheRunStartsFromIt() throws Exception {
        String p = pipeline(Map.of("records", 2, "state_every", 2), Map.of(), Map.of());
        String id = stateId(p);
        json().body("{\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 1}, \"other\": {\"v\": 1}}}}")
                .put("/api/v1/states/" + id).then().statusCode(200);
        String tapline = "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 1}, \"other\": {\"v\": 1}}}},"
                + " \"partial\": {}}";
        awaitMirror(id, tapline);

        // A `meltano run` moves the items bookmark forward in the shared directory, holding its lock
        // for a while with the file half-written: Tapline must wait for the lock, not read the half.
        Path dir = MIRROR.resolve(id);
        Path lock = dir.resolve("lock");
        Files.writeString(lock, MeltanoBackendDirectory.lockContent(Instant.now()), StandardOpenOption.CREATE_NEW);
        Files.writeString(dir.resolve("state.json"), "{\"completed\": {\"singer_st", StandardOpenOption.TRUNCATE_EXISTING);
        String meltano = "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 7}, \"other\": {\"v\": 1}}}},"
                + " \"partial\": {}}";
        // On a thread of its own: the common pool has one thread on a 2-core machine, and another
        // test's task there would keep the lock held past the lock timeout.
        java.util.concurrent.ExecutorService meltanoRun = java.util.concurrent.Executors.newSingleThreadExecutor();
        CompletableFuture<Void> finish = CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(1500);
                Files.writeString(dir.resolve("state.json"), meltano, StandardOpenOption.TRUNCATE_EXISTING);
                Files.delete(lock);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, meltanoRun);
        meltanoRun.shutdown();

        // An unrelated bookmark edit through the API lands on top of Meltano's value.
        json().body("{\"v\": 2}").put("/api/v1/states/" + id + "/bookmarks/other").then().statusCode(200);
        finish.get();
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":7},\"other\":{\"v\":2}}}}\n", state(id));
        // The mirror keeps Meltano's bookmark (and gets the edit).
        awaitMirror(id, "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 7}, \"other\": {\"v\": 2}}}},"
                + " \"partial\": {}}");
        assertFalse(Files.exists(dir.resolve(StateMirror.REJECTED_FILE)), "the half-written file was never read");

        // History: the edit, on top of Meltano's version, on top of the first set.
        JsonPath h = history(id);
        assertEquals(List.of("STATE_EDIT", "MELTANO", "STATE_EDIT"), h.getList("items.source").subList(0, 3), h.prettify());
        assertEquals("meltano mirror " + MIRROR, h.getString("items[1].actor"));
        assertEquals("mirror import", h.getString("items[1].action"));
        assertEquals(7, h.getInt("items[1].after.completed.singer_state.bookmarks.items.id"), h.prettify());

        // Meltano runs again; the next Tapline run starts from Meltano's bookmark.
        meltanoWrites(id, "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"items\": {\"id\": 9}, \"other\": {\"v\": 2}}}},"
                + " \"partial\": {}}");
        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("\"id\": 9"), "the tap got Meltano's bookmark in its state file: " + log);
        json().get("/api/v1/runs/" + run).then().body("stateBefore.singer_state.bookmarks.items.id", equalTo(9));
        JsonPath after = history(id);
        assertTrue(after.getList("items.source").contains("RUN"), after.prettify());
        assertEquals(2, after.getList("items.source").stream().filter("MELTANO"::equals).count(), after.prettify());
    }

    @Test
    void theScanImportsNewIdsAndClearsAndSetsAsideWhatItCannotRead() throws Exception {
        String fresh = "dev:" + unique("tap-m") + "-to-target-m";
        meltanoWrites(fresh, "{\"completed\": {}, \"partial\": {\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}}");
        scanJob.scan(Instant.now());
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1}}}}\n", state(fresh));
        assertEquals(List.of("MELTANO"), history(fresh).getList("items.source"));
        // Scanning again (every replica does) imports nothing more.
        scanJob.scan(Instant.now());
        assertEquals(1, history(fresh).getList("items").size());

        // `meltano state clear` removes the directory: Tapline clears the ID too (kept in history).
        Path dir = MIRROR.resolve(fresh);
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        scanJob.scan(Instant.now());
        assertEquals("{}\n", state(fresh));
        JsonPath h = history(fresh);
        assertEquals(List.of("MELTANO", "MELTANO"), h.getList("items.source"));
        assertEquals("mirror clear", h.getString("items[0].action"));

        // A file that is not a state record is neither imported nor silently overwritten.
        String broken = "dev:" + unique("tap-b") + "-to-target-b";
        json().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 5}}}}").put("/api/v1/states/" + broken)
                .then().statusCode(200);
        String good = "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 5}}}}, \"partial\": {}}";
        awaitMirror(broken, good);
        meltanoWrites(broken, "not json");
        scanJob.scan(Instant.now());
        assertEquals("not json", Files.readString(MIRROR.resolve(broken).resolve(StateMirror.REJECTED_FILE)));
        assertEquals(good, mirrorFile(broken));
        assertEquals(List.of("STATE_EDIT"), history(broken).getList("items.source"));

        // Ill-formed UTF-8 is not a state record either (Meltano cannot read it): set aside, not imported as U+FFFD.
        byte[] latin1 = "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": \"caf\u00e9\"}}}}, \"partial\": {}}"
                .getBytes(StandardCharsets.ISO_8859_1);
        Path dir2 = MIRROR.resolve(broken);
        Files.writeString(dir2.resolve("lock"), MeltanoBackendDirectory.lockContent(Instant.now()), StandardOpenOption.CREATE_NEW);
        Files.write(dir2.resolve("state.json"), latin1);
        Files.delete(dir2.resolve("lock"));
        scanJob.scan(Instant.now());
        assertEquals(List.of("STATE_EDIT"), history(broken).getList("items.source"));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":5}}}}\n", state(broken));
        // Nor is a file with a byte order mark: Python's json.load of a text file refuses it.
        byte[] bom = ("\uFEFF{\"completed\": {\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 6}}}}, \"partial\": {}}")
                .getBytes(StandardCharsets.UTF_8);
        Files.writeString(dir2.resolve("lock"), MeltanoBackendDirectory.lockContent(Instant.now()), StandardOpenOption.CREATE_NEW);
        Files.write(dir2.resolve("state.json"), bom);
        Files.delete(dir2.resolve("lock"));
        scanJob.scan(Instant.now());
        assertEquals(List.of("STATE_EDIT"), history(broken).getList("items.source"));
        assertEquals(bom.length, Files.size(dir2.resolve(StateMirror.REJECTED_FILE)));
    }

    /** A state.json of Meltano's holding bookmark {@code s: {v: n}}. */
    private static String record(int v) {
        return "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": " + v + "}}}}, \"partial\": {}}";
    }

    @Test
    void aGetRightAfterMeltanoWroteTheFileAnswersMeltanosBookmarkWithoutWaitingForTheScan() throws Exception {
        String id = "dev:" + unique("tap-g") + "-to-target-g";
        json().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}").put("/api/v1/states/" + id)
                .then().statusCode(200);
        awaitMirror(id, record(1));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1}}}}\n", state(id));

        // `meltano run` has just written its bookmark: the next GET answers it, as `meltano state get` would.
        meltanoWrites(id, record(2));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":2}}}}\n", state(id));
        // Written again at once, with the same size, in place: the stamp may be the one just looked at.
        meltanoWrites(id, record(3));
        assertEquals("{\"v\":3}\n", json().get("/api/v1/states/" + id + "/bookmarks/s").asString());
        assertEquals("3\n", json().get("/api/v1/states/" + id + "/bookmarks/s/v").asString());

        JsonPath h = history(id);
        assertEquals(List.of("MELTANO", "MELTANO", "STATE_EDIT"), h.getList("items.source"), h.prettify());
        assertEquals(record(3), mirrorFile(id), "the file is left as Meltano wrote it");
    }
}
