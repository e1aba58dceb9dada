package io.tapline.events;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real HTTP receiver for deliveries (the JDK's server on 127.0.0.1, a random port). It records
 * every request by path and answers each path with programmed status codes (then 200), after an
 * optional delay.
 */
public final class Receiver {

    /** One received request. */
    public record Request(String path, Map<String, List<String>> headers, String body, int answered) {
        /** The first value of a header (case-insensitive). */
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Integer>> answers = new ConcurrentHashMap<>();
    private final Map<String, Long> delays = new ConcurrentHashMap<>();

    /** Starts a receiver on 127.0.0.1 and a free port. */
    public Receiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Long delay = delays.get(path);
            if (delay != null) {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            int code;
            Deque<Integer> queue = answers.get(path);
            synchronized (this) {
                code = queue == null || queue.isEmpty() ? 200 : queue.poll();
            }
            requests.add(new Request(path, Map.copyOf(exchange.getRequestHeaders()), body, code));
            byte[] out = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(code, out.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        });
        server.start();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers the next requests to {@code path} with these codes, then 200. */
    public void answer(String path, Integer... codes) {
        answers.put(path, new ArrayDeque<>(List.of(codes)));
    }

    /** Waits this long before answering requests to {@code path}. */
    public void delay(String path, long millis) {
        delays.put(path, millis);
    }

    /** The requests received at {@code path}, in order. */
    public List<Request> at(String path) {
        List<Request> out = new ArrayList<>();
        for (Request r : requests) {
            if (r.path().equals(path)) {
                out.add(r);
            }
        }
        return out;
    }

    /** Stops the server. */
    public void stop() {
        server.stop(0);
    }
}
