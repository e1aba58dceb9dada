package io.tapline.state.mirror;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.tapline.state.store.StateRepository;
import io.tapline.support.TestStateMirror;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.state;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lock order of the shared Meltano state directory: a state ID's lock file is taken before its
 * advisory lock, by writers as by the scan, so a writer waiting for Meltano's lock file never holds
 * the advisory lock the scan's import needs (they deadlocked until the lock file went stale, 10 s,
 * and the API answered 408). Real files, the real database, real HTTP.
 */
@QuarkusTest
class StateMirrorLockOrderTest {

    private static final Path MIRROR = TestStateMirror.DIR.toAbsolutePath();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    DataSource dataSource;

    @Inject
    StateMirrorScanJob scanJob;

    /** A state ID with a stored state whose mirror file has been written. */
    private static String storedState(String prefix, String state) {
        String id = "dev:" + unique(prefix) + "-to-target-x";
        json().body(state).put("/api/v1/states/" + id).then().statusCode(200);
        await().atMost(WAIT).until(() -> Files.isRegularFile(MIRROR.resolve(id).resolve("state.json")));
        return id;
    }

    /** Takes the state ID's lock file as a running {@code meltano run} does; {@code heldSince} is written into it. */
    private static Path meltanoLocks(String id, Instant heldSince) throws Exception {
        Path lock = MIRROR.resolve(id).resolve(MeltanoBackendDirectory.LOCK_FILE);
        Files.writeString(lock, MeltanoBackendDirectory.lockContent(heldSince), StandardOpenOption.CREATE_NEW);
        return lock;
    }

    /** Sends a bookmark PUT on a thread of its own. */
    private static CompletableFuture<Response> putBookmarkAsync(String id, String stream, String body) {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        CompletableFuture<Response> f = CompletableFuture.supplyAsync(
                () -> json().body(body).put("/api/v1/states/" + id + "/bookmarks/" + stream), caller);
        caller.shutdown();
        return f;
    }

    /** True when a state write of this JVM waits for a mirror lock file to look at the file before writing. */
    private static boolean aWriterWaitsForTheLockFile() {
        return Thread.getAllStackTraces().values().stream().map(Arrays::asList).anyMatch(frames ->
                frames.stream().anyMatch(f -> f.getClassName().equals(MeltanoBackendDirectory.class.getName())
                        && f.getMethodName().equals("acquire"))
                && frames.stream().anyMatch(f -> f.getClassName().equals(StateMirror.class.getName())
                        && f.getMethodName().equals("hold")));
    }

    /** Backends holding the state ID's advisory lock ({@code pg_advisory_xact_lock(bigint)}: high and low halves). */
    private int advisoryLockHolders(String id) throws Exception {
        long key = StateRepository.lockKey(id);
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "select count(*) from pg_locks where locktype = 'advisory' and granted and objsubid = 1"
                        + " and classid::bigint = ? and objid::bigint = ?")) {
            s.setLong(1, key >>> 32);
            s.setLong(2, key & 0xFFFF_FFFFL);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    @Test
    void aWriterWaitingForMeltanosLockFileHoldsNoAdvisoryLock() throws Exception {
        String id = storedState("tap-order", "{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}, \"t\": {\"v\": 1}}}}");
        Path lock = meltanoLocks(id, Instant.now());
        // Meltano is writing the file in place: the writer must wait for the lock to read it.
        Files.writeString(MIRROR.resolve(id).resolve("state.json"), "{\"completed\": {\"singer_st",
                StandardOpenOption.TRUNCATE_EXISTING);
        CompletableFuture<Response> put = putBookmarkAsync(id, "s", "{\"v\": 2}");

        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(StateMirrorLockOrderTest::aWriterWaitsForTheLockFile);
        // The scan, holding the lock file, could import now: nobody holds the advisory lock.
        assertEquals(0, advisoryLockHolders(id), "the waiting writer holds the state ID's advisory lock");

        // Meltano finishes its write and unlocks; the edit lands on top of Meltano's bookmark.
        Files.writeString(MIRROR.resolve(id).resolve("state.json"), "{\"completed\": {\"singer_state\": {\"bookmarks\":"
                + " {\"s\": {\"v\": 1}, \"t\": {\"v\": 5}}}}, \"partial\": {}}", StandardOpenOption.TRUNCATE_EXISTING);
        Files.delete(lock);
        Response r = put.get();
        assertEquals(200, r.statusCode(), r.asString());
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":2},\"t\":{\"v\":5}}}}\n", state(id));
        JsonPath h = json().get("/api/v1/states/" + id + "/history").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("STATE_EDIT", "MELTANO", "STATE_EDIT"), h.getList("items.source"), h.prettify());
    }

    /**
     * A stand-in for {@code meltano run} writing the state ID again and again: take the lock file
     * (create-new), read state.json, add bookmark {@code m<k>}, write the file in place in two
     * halves, remove the lock; Meltano's own read-modify-write (meltano-state.md §1d).
     *
     * @return the bookmarks it wrote, once {@code stop} is set and its last write is done
     */
    private static CompletableFuture<List<String>> meltanoKeepsWriting(String id, java.util.concurrent.atomic.AtomicBoolean stop) {
        ExecutorService meltano = Executors.newSingleThreadExecutor();
        CompletableFuture<List<String>> f = CompletableFuture.supplyAsync(() -> {
            Path dir = MIRROR.resolve(id);
            Path lock = dir.resolve(MeltanoBackendDirectory.LOCK_FILE);
            Path file = dir.resolve("state.json");
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            List<String> wrote = new java.util.ArrayList<>();
            try {
                for (int k = 0; !stop.get(); k++) {
                    while (true) {
                        try {
                            Files.writeString(lock, MeltanoBackendDirectory.lockContent(Instant.now()), StandardOpenOption.CREATE_NEW);
                            break;
                        } catch (java.nio.file.FileAlreadyExistsException held) {
                            Thread.sleep(5);
                        }
                    }
                    try {
                        var state = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(file.toFile());
                        state.withObject("/completed/singer_state/bookmarks").put("m" + k, k);
                        byte[] bytes = json.writeValueAsBytes(state);
                        try (var out = Files.newOutputStream(file, StandardOpenOption.TRUNCATE_EXISTING)) {
                            out.write(bytes, 0, bytes.length / 2);
                            out.flush();
                            Thread.sleep(5);
                            out.write(bytes, bytes.length / 2, bytes.length - bytes.length / 2);
                        }
                        wrote.add("m" + k);
                    } finally {
                        Files.delete(lock);
                    }
                    Thread.sleep(15);
                }
                return wrote;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, meltano);
        meltano.shutdown();
        return f;
    }

    @Test
    void noAcknowledgedEditIsLostWhileMeltanoKeepsWritingTheFile() throws Exception {
        String id = storedState("tap-race", "{\"singer_state\": {\"bookmarks\": {}}}");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture<List<String>> meltano = meltanoKeepsWriting(id, stop);
        List<String> edits = new java.util.ArrayList<>();
        for (int i = 0; i < 25; i++) {
            json().body("{\"v\": " + i + "}").put("/api/v1/states/" + id + "/bookmarks/p" + i).then().statusCode(200);
            edits.add("p" + i);
        }
        stop.set(true);
        List<String> wrote = meltano.get();
        scanJob.scan(Instant.now()); // imports Meltano's last write
        JsonPath stored = new JsonPath(state(id));
        java.util.Set<String> keys = stored.<String, Object>getMap("singer_state.bookmarks").keySet();
        List<String> lost = new java.util.ArrayList<>();
        for (String k : edits) {
            if (!keys.contains(k)) {
                lost.add(k);
            }
        }
        for (String k : wrote) {
            if (!keys.contains(k)) {
                lost.add(k);
            }
        }
        assertEquals(List.of(), lost, "bookmarks lost; Meltano wrote " + wrote.size() + " times; " + keys.size()
                + " bookmarks stored");
    }

    /**
     * An edit waits for Meltano's lock file up to the lock timeout and one more look (10 s and
     * 50 ms), longer than the tests' body timeout (10 s): it is answered 503 naming the lock, not
     * 408 "the body did not arrive" (its 8-byte body had arrived), and nothing is changed.
     */
    @Test
    void anEditWaitingLongerThanTheBodyTimeoutForMeltanosLockIs503AndChangesNothing() throws Exception {
        String id = storedState("tap-slow", "{\"singer_state\": {\"bookmarks\": {\"s\": {\"v\": 1}}}}");
        Path lock = meltanoLocks(id, Instant.now().plusSeconds(60)); // fresh for the whole wait
        // Meltano is writing the file in place: the edit must wait for the lock to read it.
        Files.writeString(MIRROR.resolve(id).resolve("state.json"), "{\"completed\": {\"singer_st",
                StandardOpenOption.TRUNCATE_EXISTING);
        Response r;
        try {
            r = json().body("{\"v\": 2}").put("/api/v1/states/" + id + "/bookmarks/s");
        } finally {
            Files.delete(lock);
        }
        assertEquals(503, r.statusCode(), "the body had arrived; only the lock was slow: " + r.asString());
        assertTrue(r.asString().contains("stayed locked by another writer"), r.asString());
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"s\":{\"v\":1}}}}\n", state(id), "nothing was changed");
    }
}
