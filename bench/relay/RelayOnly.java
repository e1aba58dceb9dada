import io.tapline.connector.Relay;
import io.tapline.connector.RelayResult;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The relay alone, without the service: isolates the relay's own cost from the run engine's.
 *
 *   java -cp target/classes bench/relay/RelayOnly.java TAP_GEN TARGET N ROUNDS
 *
 * Each round: (1) tap-gen | target through a direct pipe (a shell), (2) tap-gen -> Relay ->
 * target with the processes started by ProcessBuilder as the service does, (3) the Relay over
 * the same bytes held in memory into a null stream (the scanner's CPU cost alone). Prints
 * milliseconds and records/s of each, and for (3) the relay thread's CPU time as MB per CPU
 * second, which a busy machine disturbs far less than wall time; the first round warms the JIT
 * up. Compare two builds with -cp A and -cp B, alternately.
 */
public class RelayOnly {
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        String tap = args[0], target = args[1];
        long n = Long.parseLong(args[2]);
        int rounds = Integer.parseInt(args[3]);
        java.util.List<Double> cpuRates = new java.util.ArrayList<>();
        byte[] bytes = new ProcessBuilder(tap, Long.toString(Math.min(n, 1_000_000))).start().getInputStream().readAllBytes();
        for (int round = 0; round <= rounds; round++) {
            long t0 = System.nanoTime();
            Process sh = new ProcessBuilder("sh", "-c", "\"$0\" \"$1\" | \"$2\" > /dev/null 2>&1", tap, Long.toString(n), target)
                    .inheritIO().start();
            sh.waitFor();
            long direct = System.nanoTime() - t0;

            t0 = System.nanoTime();
            long relayCpu0 = THREADS.getCurrentThreadCpuTime();
            Process tgt = new ProcessBuilder(target).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            Process tp = new ProcessBuilder(tap, Long.toString(n)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            OutputStream out = tgt.getOutputStream();
            RelayResult r = new Relay().relay(tp.getInputStream(), out);
            out.close();
            tgt.waitFor();
            tp.waitFor();
            long relayed = System.nanoTime() - t0;
            long relayedCpu = THREADS.getCurrentThreadCpuTime() - relayCpu0;
            if (!r.succeeded()) throw new IllegalStateException(r.failure().get().message());

            t0 = System.nanoTime();
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            InputStream in = new ByteArrayInputStream(bytes);
            RelayResult m = new Relay().relay(in, OutputStream.nullOutputStream());
            long memory = System.nanoTime() - t0;
            long memoryCpu = THREADS.getCurrentThreadCpuTime() - cpu0;
            cpuRates.add(bytes.length * 1e3 / memoryCpu);
            long memRecords = m.counts().total().records();
            System.out.printf("%s: direct pipe %d ms (%.0f rec/s) | relay between processes %d ms (%.0f rec/s), ratio %.2f, relay thread CPU %d ms"
                            + " | relay from memory %d ms for %d records (%.0f rec/s, %.0f MB/s; %.0f MB per CPU second)%n",
                    round == 0 ? "warm-up" : "round " + round, direct / 1_000_000, n * 1e9 / direct,
                    relayed / 1_000_000, n * 1e9 / relayed, (double) direct / relayed, relayedCpu / 1_000_000,
                    memory / 1_000_000, memRecords, memRecords * 1e9 / memory, bytes.length * 1e3 / memory,
                    bytes.length * 1e3 / memoryCpu);
            if (round == 0) {
                cpuRates.clear();
            }
        }
        cpuRates.sort(null);
        System.out.printf("relay from memory, median over the rounds: %.0f MB per CPU second%n", cpuRates.get(cpuRates.size() / 2));
    }
}
