package io.tapline.events;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.tapline.support.Api.json;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 item 8: 20 webhooks to a receiver that accepts connections and never answers (a
 * tarpit) delayed a healthy webhook and OpenLineage by minutes, attempts being made one after the
 * other. Attempts now run concurrently, at most {@code tapline.events.max-concurrent-per-endpoint}
 * (2) per receiver: the healthy webhook and OpenLineage get their deliveries while the tarpit holds
 * two connections and the other tarpit deliveries wait, PENDING. The delivery timeout is 60 s
 * here ({@link TarpitProfile}), longer than the test waits, so on the old sequential worker the
 * healthy delivery never arrives in time.
 */
@QuarkusTest
@TestProfile(TarpitProfile.class)
class DeliveryTarpitTest {

    private static final Duration WAIT = Duration.ofSeconds(45);

    @Test
    void aReceiverThatNeverAnswersHoldsOnlyItsOwnPlaces() throws Exception {
        try (Tarpit tarpit = new Tarpit()) {
            String p = pipeline(Map.of("records", 1, "state_every", 1), Map.of("mode", "fail-before-state"), Map.of());
            List<String> stuck = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                stuck.add(json().body(Map.of("url", "http://127.0.0.1:" + tarpit.port() + "/hook-" + i,
                                "events", List.of("run.failed"), "pipelines", List.of(p), "secret", WebhookDeliveryTest.SECRET))
                        .post("/api/v1/webhooks").then().statusCode(201).extract().path("id"));
            }
            String path = "/healthy/" + p;
            String healthy = json().body(Map.of("url", ReceiverResource.receiver.base() + path,
                            "events", List.of("run.failed"), "pipelines", List.of(p), "secret", WebhookDeliveryTest.SECRET))
                    .post("/api/v1/webhooks").then().statusCode(201).extract().path("id");
            String run = trigger(p, Map.of());
            awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"));

            await().atMost(WAIT).until(() -> ReceiverResource.receiver.at(path).size() == 1);
            await().atMost(WAIT).until(() -> ReceiverResource.receiver.at(ReceiverResource.LINEAGE_PATH).stream()
                    .anyMatch(r -> r.body().contains(run) && r.body().contains("\"FAIL\"")));
            json().get("/api/v1/webhooks/" + healthy + "/deliveries").then().body("items[0].status", equalTo("DELIVERED"));
            // the tarpit was given two connections at once, never more, and none of its deliveries settled
            await().atMost(WAIT).until(() -> tarpit.open.get() == 2);
            assertTrue(tarpit.maxOpen.get() <= 2, "at most 2 attempts at once to one receiver: " + tarpit.maxOpen);
            for (String hook : stuck) {
                json().get("/api/v1/webhooks/" + hook + "/deliveries").then().body("items[0].status", equalTo("PENDING"));
            }
            assertEquals(2, tarpit.accepted.get(), "the other 18 wait without a connection");
        }
    }

    /** A server on 127.0.0.1 that accepts connections, reads what is sent and never answers. */
    private static final class Tarpit implements AutoCloseable {
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger maxOpen = new AtomicInteger();
        final AtomicInteger accepted = new AtomicInteger();
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> sockets = java.util.Collections.synchronizedList(new ArrayList<>());

        Tarpit() throws IOException {
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        sockets.add(s);
                        accepted.incrementAndGet();
                        maxOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
                        Thread reader = new Thread(() -> drain(s), "tarpit-conn");
                        reader.setDaemon(true);
                        reader.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "tarpit");
            t.setDaemon(true);
            t.start();
        }

        private void drain(Socket s) {
            try (InputStream in = s.getInputStream()) {
                byte[] b = new byte[4096];
                while (in.read(b) >= 0) {
                    // read and never answer
                }
            } catch (IOException ignored) {
                // closed
            } finally {
                open.decrementAndGet();
            }
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (sockets) {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }
}
