package io.tapline.common.api;

import io.tapline.support.ItSupport;
import io.tapline.support.ServiceProcess;
import io.tapline.support.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.tapline.support.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31, item 1, against the packaged service with a 512 MiB heap (as a pod would have) and the
 * file mirror's scan running: 100 concurrent {@code GET /api/v1/states/<id>} of a 15 MB state and
 * of its history (two entries holding it three times), one
 * {@code :discover} of a generated 20,000-stream catalog (15 MB) and 100 concurrent {@code GET
 * .../streams} of it. Every answer is 200 or 429 (never 5xx), liveness answers throughout, the log
 * holds no {@code OutOfMemoryError}, and the 200 answers are the exact bytes expected. The heap
 * after each burst is printed ({@code GC.heap_info}) and the GC log is kept in the service's
 * directory ({@code gc.log}).
 */
class LargeReadsIT {

    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static final Path TAP = Path.of("src/test/resources/connectors/catalog_tap.py").toAbsolutePath();
    private static final int CONCURRENT = 100;
    private static final int STREAMS = 20_000;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void reset() {
        ItSupport.reset();
    }

    @Test
    void largeStatesAndCatalogsAreServedWithinA512MiBHeap() throws Exception {
        Path mirror = Files.createTempDirectory("tapline-large-reads-mirror");
        try (TestPostgres.Database db = TestPostgres.shared().createDatabase("it_large_reads");
             ServiceProcess service = ServiceProcess.start("large-reads", db, Map.of(
                     // every request comes from 127.0.0.1 (authentication is off here): the total cap holds
                     "TAPLINE_API_LARGE_READS_PER_CALLER", Integer.toString(CONCURRENT),
                     "TAPLINE_STATE_MIRROR_DIR", mirror.toString(),
                     "TAPLINE_STATE_MIRROR_SCAN_INTERVAL", "2s"),
                     "512m", List.of("-Xlog:gc:file=gc.log"))) {
            service.awaitReady(STARTUP);
            ItSupport.use(service);
            Liveness live = Liveness.watch(service);

            // A 15 MB state as Tapline stores it (Python's default layout), written as another writer would.
            String stateId = "large-reads-state";
            String[] texts = state(15_000_000);
            try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("insert into singer_state"
                    + " (state_id, completed, partial, list_status, version) values (?, ?, '{}', 'ok', 1)")) {
                s.setString(1, stateId);
                s.setString(2, texts[0]);
                s.executeUpdate();
            }
            // ... and two history entries of it (the second holds it twice: before and after)
            try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("insert into singer_state_version"
                    + " (state_id, version, source, action, actor, completed_before, partial_before, completed_after,"
                    + " partial_after) values (?, ?, 'STATE_EDIT', 'set', 'it', ?, ?, ?, '{}')")) {
                for (int v = 1; v <= 2; v++) {
                    s.setString(1, stateId);
                    s.setInt(2, v);
                    s.setString(3, v == 1 ? null : texts[0]);
                    s.setString(4, v == 1 ? null : "{}");
                    s.setString(5, texts[0]);
                    s.executeUpdate();
                }
            }
            String expected = sha256(texts[1].getBytes(StandardCharsets.US_ASCII));
            texts = null;
            Map<Integer, Integer> states = burst(service.baseUri() + "/api/v1/states/" + stateId, expected);
            System.out.println("100 concurrent state reads of 15 MB: " + states);
            heap(service, "after 100 state reads");

            String historyUrl = service.baseUri() + "/api/v1/states/" + stateId + "/history?limit=200";
            byte[] history = get(historyUrl);
            com.fasterxml.jackson.databind.JsonNode page = new com.fasterxml.jackson.databind.ObjectMapper().readTree(history);
            assertEquals(2, page.path("items").size(), "two entries");
            assertEquals(2, page.path("items").path(0).path("version").asInt());
            assertEquals(1, page.path("items").path(1).path("version").asInt());
            assertTrue(page.path("items").path(0).path("before").path("completed").path("singer_state")
                    .path("bookmarks").size() > 50_000, "the whole state is shown before and after");
            page = null;
            Map<Integer, Integer> histories = burst(historyUrl, sha256(history));
            history = null;
            System.out.println("100 concurrent history reads (two entries, three copies of 15 MB): " + histories);
            heap(service, "after 100 history reads");

            // One discovery of a 20,000-stream catalog.
            String tap = "tap-large-" + Long.toHexString(System.nanoTime());
            json().body(Map.of("name", tap, "executable", TAP.toString(), "capabilities", List.of("catalog", "discover"),
                    "config", Map.of("discover_streams", STREAMS))).post("/api/v1/plugins/extractors")
                    .then().statusCode(201);
            int discovered = json().post("/api/v1/plugins/extractors/" + tap + ":discover").then().statusCode(200)
                    .extract().path("streams.size()");
            assertEquals(STREAMS, discovered);
            heap(service, "after the discovery of " + STREAMS + " streams");

            String url = service.baseUri() + "/api/v1/plugins/extractors/" + tap + "/streams";
            String view = sha256(get(url));
            Map<Integer, Integer> streams = burst(url, view);
            System.out.println("100 concurrent streams reads of " + STREAMS + " streams: " + streams);
            heap(service, "after 100 streams reads");

            live.stop();
            assertEquals(List.of(), live.failures(), "liveness answered 200 throughout");
            assertTrue(live.answered() > 0, "liveness was asked");
            assertFalse(service.log().contains("OutOfMemoryError"), service.logTail());
            assertEquals(200, service.status("/q/health/ready"));
        } finally {
            try (var paths = Files.walk(mirror)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * {@value #CONCURRENT} GETs of {@code url} at once; every answer is 200 with the body of digest
     * {@code sha256} or 429 problem+json, at least one is 200.
     *
     * @return how many answers had each status
     */
    private static Map<Integer, Integer> burst(String url, String sha256) {
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        List<String> wrong = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < CONCURRENT; i++) {
            HttpRequest r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120)).GET().build();
            calls.add(HTTP.sendAsync(r, HttpResponse.BodyHandlers.ofInputStream()).thenAccept(res -> {
                statuses.merge(res.statusCode(), 1, Integer::sum);
                try (InputStream in = res.body()) {
                    if (res.statusCode() == 200) {
                        String got = sha256(in);
                        if (!got.equals(sha256)) {
                            wrong.add("200 with another body: " + got);
                        }
                    } else {
                        String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                        if (res.statusCode() != 429 || !body.contains("too-many-requests")
                                || !res.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
                            wrong.add(res.statusCode() + " " + body);
                        }
                    }
                } catch (IOException e) {
                    wrong.add("read failed: " + e);
                }
            }));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
        assertEquals(List.of(), wrong);
        assertTrue(statuses.getOrDefault(200, 0) > 0, statuses.toString());
        return new TreeMap<>(statuses);
    }

    /** A state of about {@code size} bytes in the stored layout [0] and as GET prints it [1] (with its newline). */
    private static String[] state(int size) {
        StringBuilder stored = new StringBuilder(size + 200);
        StringBuilder printed = new StringBuilder(size + 200);
        stored.append("{\"singer_state\": {\"bookmarks\": {");
        printed.append("{\"singer_state\":{\"bookmarks\":{");
        for (int i = 0; stored.length() < size; i++) {
            String name = "\"public-table_" + i + "\"";
            String lsn = "1234567890123456789" + (i % 10);
            stored.append(i == 0 ? "" : ", ").append(name).append(": {\"replication_key\": \"updated_at\","
                    + " \"replication_key_value\": \"2024-01-05T12:00:00.123456+00:00\", \"lsn\": ").append(lsn)
                    .append(", \"ratio\": 0.5}");
            printed.append(i == 0 ? "" : ",").append(name).append(":{\"replication_key\":\"updated_at\","
                    + "\"replication_key_value\":\"2024-01-05T12:00:00.123456+00:00\",\"lsn\":").append(lsn)
                    .append(",\"ratio\":0.5}");
        }
        return new String[] {stored.append("}}}").toString(), printed.append("}}}\n").toString()};
    }

    private static byte[] get(String url) throws Exception {
        HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
        return r.body();
    }

    /** Prints the service's heap ({@code jcmd <pid> GC.heap_info}) after a full GC. */
    private static void heap(ServiceProcess service, String when) throws Exception {
        String pid = Long.toString(service.process().pid());
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return;
        }
        for (String command : List.of("GC.run", "GC.heap_info")) {
            Process p = new ProcessBuilder(jcmd.toString(), pid, command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            if (command.equals("GC.heap_info")) {
                System.out.println("heap " + when + ":\n" + out);
            }
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] b = new byte[65536];
            for (int n; (n = in.read(b)) > 0; ) {
                d.update(b, 0, n);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Asks {@code /q/health/live} one after the other while the bursts run; keeps every answer that is not 200. */
    private static final class Liveness {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<String> failures = new CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
        private Thread thread;

        static Liveness watch(ServiceProcess service) {
            Liveness l = new Liveness();
            HttpRequest r = HttpRequest.newBuilder(URI.create(service.baseUri() + "/q/health/live"))
                    .timeout(Duration.ofSeconds(10)).GET().build();
            l.thread = new Thread(() -> {
                while (l.running.get()) {
                    try {
                        int status = HTTP.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
                        l.answered.incrementAndGet();
                        if (status != 200) {
                            l.failures.add("status " + status);
                        }
                        Thread.sleep(250); // a probe's period, not a synchronisation
                    } catch (InterruptedException e) {
                        return;
                    } catch (IOException e) {
                        l.failures.add(e.toString());
                    }
                }
            }, "liveness-probe");
            l.thread.setDaemon(true);
            l.thread.start();
            return l;
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(15_000);
        }

        List<String> failures() {
            return failures;
        }

        int answered() {
            return answered.get();
        }
    }
}
