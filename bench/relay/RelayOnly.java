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
 * milliseconds and records/s of each, the CPU time of the relay thread and of the whole JVM for (2),
 * and for (3) the relay thread's and the JVM's CPU time as MB per CPU second, which a busy machine
 * disturbs far less than wall time (the relay validates half of each large chunk on a second
 * thread, so the JVM figure is the one to compare across builds); the first round warms the JIT up. Compare two builds with -cp A and -cp B, alternately.
 */
public class RelayOnly {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        String tap = args[0], target = args[1];
        long n = Long.parseLong(args[2]);
        int rounds = Integer.parseInt(args[3]);
        java.util.List<Double> cpuRates = new java.util.ArrayList<>();
        java.util.List<Double> jvmRates = new java.util.ArrayList<>();
        byte[] bytes = new ProcessBuilder(tap, Long.toString(Math.min(n, 1_000_000))).start().getInputStream().readAllBytes();
        for (int round = 0; round <= rounds; round++) {
            long t0 = System.nanoTime();
            Process sh = new ProcessBuilder("sh", "-c", "\"$0\" \"$1\" | \"$2\" > /dev/null 2>&1", tap, Long.toString(n), target)
                    .inheritIO().start();
            sh.waitFor();
            long direct = System.nanoTime() - t0;

            t0 = System.nanoTime();
            long relayCpu0 = THREADS.getCurrentThreadCpuTime();
            long jvmCpu0 = OS.getProcessCpuTime();
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
            long jvmCpu = OS.getProcessCpuTime() - jvmCpu0;
            if (!r.succeeded()) throw new IllegalStateException(r.failure().get().message());

            t0 = System.nanoTime();
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            long memoryJvm0 = OS.getProcessCpuTime();
            InputStream in = new ByteArrayInputStream(bytes);
            RelayResult m = new Relay().relay(in, OutputStream.nullOutputStream());
            long memory = System.nanoTime() - t0;
            long memoryCpu = THREADS.getCurrentThreadCpuTime() - cpu0;
            long memoryJvm = OS.getProcessCpuTime() - memoryJvm0;
            cpuRates.add(bytes.length * 1e3 / memoryCpu);
            jvmRates.add(bytes.length * 1e3 / memoryJvm);
            long memRecords = m.counts().total().records();
            System.out.printf("%s: direct pipe %d ms (%.0f rec/s) | relay between processes %d ms (%.0f rec/s), ratio %.2f, relay thread CPU %d ms, JVM CPU %d ms"
                            + " | relay from memory %d ms for %d records (%.0f rec/s, %.0f MB/s; %.0f MB per CPU second of the relay thread, %.0f of the JVM)%n",
                    round == 0 ? "warm-up" : "round " + round, direct / 1_000_000, n * 1e9 / direct,
                    relayed / 1_000_000, n * 1e9 / relayed, (double) direct / relayed, relayedCpu / 1_000_000, jvmCpu / 1_000_000,
                    memory / 1_000_000, memRecords, memRecords * 1e9 / memory, bytes.length * 1e3 / memory,
                    bytes.length * 1e3 / memoryCpu, bytes.length * 1e3 / memoryJvm);
            if (round == 0) {
                cpuRates.clear();
                jvmRates.clear();
            }
        }
        cpuRates.sort(null);
        jvmRates.sort(null);
        System.out.printf("relay from memory, median over the rounds: %.0f MB per CPU second of the relay thread, %.0f MB per CPU"
                + " second of the whole JVM (the relay's validator thread included)%n",
                cpuRates.get(cpuRates.size() / 2), jvmRates.get(jvmRates.size() / 2));
    }
}
