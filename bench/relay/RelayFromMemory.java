import io.tapline.connector.Relay;
import io.tapline.connector.RelayResult;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

/**
 * The relay's scanner alone: relays N generated RECORD lines of about 250 bytes (SDK-style
 * compact JSON with escapes and non-ASCII names) from memory to a null stream and prints the
 * throughput of each round, wall and relay-thread CPU. The counts are checked (exit 1 otherwise),
 * so that the measurement is of a relay that did its job.
 *
 *   ./mvnw -q compile && java -cp target/classes bench/relay/RelayFromMemory.java [LINES] [ROUNDS]
 *
 * Defaults: 1,000,000 lines, 3 rounds. Compare two builds with -cp A and -cp B, alternately.
 */
public class RelayFromMemory {

    private static final String[] STREAMS = {"public-orders", "public-customers", "public-order_items"};

    public static void main(String[] args) {
        int lines = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        new RelayFromMemory().run(lines, rounds);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("The relay did not do its job: " + what);
            System.exit(1);
        }
    }
    private void run(int lines, int rounds) {
        byte[] input = generate(lines);
        // A short warm-up, so that the measurement is of compiled code.
        Relay warmUp = new Relay();
        warmUp.relay(new ByteArrayInputStream(input, 0, input.length / 10), OutputStream.nullOutputStream());

        // Several rounds: on a shared machine a single one may mostly measure the neighbours. CPU
        // time (this thread's) is printed too: it leaves out the time other processes had the core.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean cpuTime = threads.isCurrentThreadCpuTimeSupported();
        double best = 0;
        for (int round = 1; round <= rounds; round++) {
            Relay relay = new Relay();
            long cpuStart = cpuTime ? threads.getCurrentThreadCpuTime() : 0;
            long start = System.nanoTime();
            RelayResult result = relay.relay(new ByteArrayInputStream(input), OutputStream.nullOutputStream());
            long elapsed = System.nanoTime() - start;
            long cpu = cpuTime ? threads.getCurrentThreadCpuTime() - cpuStart : 0;

            check(result.succeeded(), result.failure().map(f -> f.message()).orElse(""));
            check(result.counts().total().records() == lines, "records " + result.counts().total().records());
            check(result.counts().bytes() == input.length, "bytes " + result.counts().bytes());
            double seconds = elapsed / 1e9;
            double megabytesPerSecond = input.length / 1e6 / seconds;
            best = Math.max(best, megabytesPerSecond);
            System.out.printf("Relay throughput, round %d: %d lines, %.1f MB in %.3f s = %.0f MB/s, %.0f lines/s%s%n",
                    round, lines, input.length / 1e6, seconds, megabytesPerSecond, lines / seconds,
                    cpuTime ? String.format(" (per CPU second: %.0f MB/s)", input.length / 1e3 / (cpu / 1e6)) : "");
        }
        System.out.printf("Relay throughput, best round: %.0f MB/s, %.0f lines/s%n", best, best * 1e6 * lines / input.length);
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
