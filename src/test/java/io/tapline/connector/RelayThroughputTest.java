package io.tapline.connector;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Relays 1,000,000 generated RECORD lines of about 250 bytes from memory to a null stream and
 * prints the throughput of each of a few rounds. Nothing is asserted about speed (shared CI
 * machines vary); the counts are checked so that the measurement is of a relay that did its job.
 */
class RelayThroughputTest {

    private static final int LINES = 1_000_000;
    private static final int ROUNDS = 3;
    private static final String[] STREAMS = {"public-orders", "public-customers", "public-order_items"};

    @Test
    void relaysAMillionRecordLines() {
        byte[] input = generate(LINES);
        // A short warm-up, so that the measurement is of compiled code.
        Relay warmUp = new Relay();
        warmUp.relay(new ByteArrayInputStream(input, 0, input.length / 10), OutputStream.nullOutputStream());

        // Several rounds: on a shared machine a single one may mostly measure the neighbours. CPU
        // time (this thread's) is printed too: it leaves out the time other processes had the core.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean cpuTime = threads.isCurrentThreadCpuTimeSupported();
        double best = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            Relay relay = new Relay();
            long cpuStart = cpuTime ? threads.getCurrentThreadCpuTime() : 0;
            long start = System.nanoTime();
            RelayResult result = relay.relay(new ByteArrayInputStream(input), OutputStream.nullOutputStream());
            long elapsed = System.nanoTime() - start;
            long cpu = cpuTime ? threads.getCurrentThreadCpuTime() - cpuStart : 0;

            assertTrue(result.succeeded(), () -> result.failure().orElseThrow().message());
            assertEquals(LINES, result.counts().total().records());
            assertEquals(input.length, result.counts().bytes());
            double seconds = elapsed / 1e9;
            double megabytesPerSecond = input.length / 1e6 / seconds;
            best = Math.max(best, megabytesPerSecond);
            System.out.printf("Relay throughput, round %d: %d lines, %.1f MB in %.3f s = %.0f MB/s, %.0f lines/s%s%n",
                    round, LINES, input.length / 1e6, seconds, megabytesPerSecond, LINES / seconds,
                    cpuTime ? String.format(" (per CPU second: %.0f MB/s)", input.length / 1e3 / (cpu / 1e6)) : "");
        }
        System.out.printf("Relay throughput, best round: %.0f MB/s, %.0f lines/s%n", best, best * 1e6 * LINES / input.length);
    }

    /** Lines like an SDK tap's: compact JSON, a nested record, escapes and a non-ASCII name now and then. */
    private static byte[] generate(int lines) {
        StringBuilder line = new StringBuilder(320);
        byte[] out = new byte[lines * 320];
        int length = 0;
        for (int i = 0; i < lines; i++) {
            line.setLength(0);
            line.append("{\"type\":\"RECORD\",\"stream\":\"").append(STREAMS[i % STREAMS.length])
                    .append("\",\"record\":{\"id\":").append(i)
                    .append(",\"name\":\"").append(i % 7 == 0 ? "Zo\u00eb \\\"Z\\\" M\u00fcller" : "customer number " + i)
                    .append("\",\"amount\":").append(i % 100_000).append('.').append(i % 100)
                    .append(",\"active\":").append(i % 2 == 0)
                    .append(",\"tags\":[\"a\",\"b\",null],\"score\":-1.5e-3")
                    .append(",\"updated_at\":\"2024-01-01T00:00:00Z\"},\"time_extracted\":\"2026-11-29T15:09:49.539253Z\"}\n");
            byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
            System.arraycopy(bytes, 0, out, length, bytes.length);
            length += bytes.length;
        }
        return java.util.Arrays.copyOf(out, length);
    }
}
