package io.tapline.cli.http;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Api#close()} ends the HTTP client's selector thread, which the JVM's exit would otherwise
 * wait up to 300 ms for while it sits in {@code epoll_wait} (bench/README.md §8). Runs on the JDK
 * of the build: 17 takes the interrupt path, 21 and later {@code shutdownNow}.
 */
class SelectorStopTest {

    private HttpServer server;
    private URI base;

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        server.createContext("/api/v1/states/x", exchange -> {
            byte[] body = "{\"singer_state\":{}}\n".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void closeEndsTheSelectorThreadOfTheClient() {
        Set<Thread> before = selectorThreads();
        Api api = new Api(base, null);
        assertEquals(200, api.get("/api/v1/states/x").send().status());
        List<Thread> made = new ArrayList<>(selectorThreads());
        made.removeAll(before);
        assertEquals(1, made.size(), "one selector thread for the request: " + made);

        api.close();

        assertFalse(made.get(0).isAlive(), "the selector thread still runs after close: " + made.get(0));
    }

    @Test
    void aCopyWithAnotherTokenSharesTheClientAndARequestAfterCloseMakesANewOne() {
        Set<Thread> before = selectorThreads();
        Api api = new Api(base, null);
        Api withToken = api.withToken("a.b.c");
        api.get("/api/v1/states/x").send();
        withToken.get("/api/v1/states/x").send();
        withToken.close();
        assertTrue(aliveSince(before).isEmpty(), "closing a copy stops the shared client");

        assertEquals(200, api.get("/api/v1/states/x").send().status());
        assertEquals(1, aliveSince(before).size());
        api.close();
        assertTrue(aliveSince(before).isEmpty());
    }

    @Test
    void closeWithoutARequestDoesNothing() {
        new Api(base, "a.b.c").close();
    }

    private static Set<Thread> aliveSince(Set<Thread> before) {
        return selectorThreads().stream().filter(t -> !before.contains(t)).collect(Collectors.toSet());
    }

    private static Set<Thread> selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().matches("HttpClient-\\d+-SelectorManager"))
                .collect(Collectors.toSet());
    }
}
