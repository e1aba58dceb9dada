package io.tapline.run;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import io.tapline.common.config.TaplineConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.tapline.common.error.LimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves run logs as a stream of chunks ({@code GET /api/v1/runs/{id}/log}) without holding a
 * request thread: every reader is a {@link Multi} fed by one small "log-follow" thread, which reads
 * at most {@link #CHUNK_BYTES} per reader and only when the HTTP layer asks for more (so a slow
 * client costs no memory), and every {@link #POLL_MS} ms looks for new lines of followed runs.
 * Readers come from the local file when this replica ran the run, else from the tail kept in the
 * database (read once per run and poll, whatever the number of readers). {@code follow} keeps a
 * reader open until the run has ended and everything was sent.
 *
 * <p>Followers are capped per run ({@code tapline.api.log-followers-per-run}), per caller
 * ({@code tapline.api.log-followers-per-caller}) and in total ({@code tapline.api.max-log-followers});
 * beyond, {@link #follow} refuses with 429 problem+json.
 */
@ApplicationScoped
public class RunLogFollowers {

    /** Largest chunk sent at once, in bytes. */
    static final int CHUNK_BYTES = 65536;

    /** Time between two looks for new lines of a followed run, in milliseconds. */
    static final long POLL_MS = 250;

    private static final Logger LOG = Logger.getLogger(RunLogFollowers.class);

    private final RunLogs logs;
    private final TaplineConfig config;
    private final Set<Reader> readers = ConcurrentHashMap.newKeySet();
    private final Map<UUID, AtomicInteger> perRun = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> perCaller = new ConcurrentHashMap<>();
    private final AtomicInteger followers = new AtomicInteger();
    private final ScheduledExecutorService pump = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "log-follow");
        t.setDaemon(true);
        return t;
    });

    public RunLogFollowers(RunLogs logs, TaplineConfig config) {
        this.logs = logs;
        this.config = config;
        pump.scheduleWithFixedDelay(this::poll, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        pump.shutdownNow();
    }

    /**
     * The log of a run as UTF-8 chunks; with {@code follow}, open until the run has ended.
     *
     * @param caller who follows (the token's subject), for the per-caller cap
     * @throws LimitExceededException 429 when a follower cap is reached
     */
    public Multi<byte[]> stream(UUID runId, boolean follow, String caller) {
        if (follow) {
            reserve(runId, caller);
        }
        Reader reader = new Reader(runId, follow, caller);
        return Multi.createFrom().<byte[]>emitter(e -> {
                    reader.emitter = e;
                    readers.add(reader);
                    pump.execute(() -> pumpOne(reader, new HashMap<>()));
                })
                .onRequest().invoke(n -> pump.execute(() -> pumpOne(reader, new HashMap<>())))
                .onTermination().invoke(() -> release(reader));
    }

    /** Readers open now (for tests and metrics). */
    public int open() {
        return readers.size();
    }

    private void reserve(UUID runId, String caller) {
        int perRunCap = config.api().logFollowersPerRun();
        int perCallerCap = config.api().logFollowersPerCaller();
        int total = config.api().maxLogFollowers();
        AtomicInteger r = perRun.computeIfAbsent(runId, k -> new AtomicInteger());
        AtomicInteger c = perCaller.computeIfAbsent(caller, k -> new AtomicInteger());
        String refusal = null;
        if (followers.incrementAndGet() > total) {
            refusal = "The service already streams " + total + " run logs (tapline.api.max-log-followers).";
        }
        if (r.incrementAndGet() > perRunCap && refusal == null) {
            refusal = "Run " + runId + " already has " + perRunCap + " followers (tapline.api.log-followers-per-run).";
        }
        if (c.incrementAndGet() > perCallerCap && refusal == null) {
            refusal = "You already follow " + perCallerCap + " run logs (tapline.api.log-followers-per-caller);"
                    + " close one first.";
        }
        if (refusal != null) {
            followers.decrementAndGet();
            r.decrementAndGet();
            c.decrementAndGet();
            throw new LimitExceededException(LimitExceededException.Limit.CONCURRENCY, refusal);
        }
    }

    private void release(Reader reader) {
        if (!readers.remove(reader)) {
            return;
        }
        reader.closeFile();
        if (reader.follow) {
            followers.decrementAndGet();
            perRun.computeIfPresent(reader.runId, (k, v) -> v.decrementAndGet() <= 0 ? null : v);
            perCaller.computeIfPresent(reader.caller, (k, v) -> v.decrementAndGet() <= 0 ? null : v);
        }
    }

    /** Every poll: sends what is new to each reader; one database look per run and poll. */
    private void poll() {
        Map<UUID, RunLogs.Tail> tails = new HashMap<>();
        for (Reader r : readers) {
            pumpOne(r, tails);
        }
    }

    /** Sends to one reader as much as it asked for; completes it when everything was sent. Pump thread only. */
    private void pumpOne(Reader r, Map<UUID, RunLogs.Tail> tails) {
        MultiEmitter<? super byte[]> e = r.emitter;
        if (e == null || r.done || e.isCancelled()) {
            if (e != null && e.isCancelled()) {
                release(r);
            }
            return;
        }
        try {
            if (r.fromFile == null) {
                r.fromFile = Files.exists(logs.path(r.runId));
            }
            boolean finished = r.fromFile ? pumpFile(r, e) : pumpDatabase(r, e, tails);
            if (finished) {
                r.done = true;
                e.complete();
            }
        } catch (RuntimeException | IOException ex) {
            LOG.debugf("Log stream of run %s ended: %s", r.runId, ex.getMessage());
            r.done = true;
            e.fail(ex);
        }
    }

    private boolean pumpFile(Reader r, MultiEmitter<? super byte[]> e) throws IOException {
        if (r.channel == null) {
            RunLog live = logs.live(r.runId);
            if (live != null) {
                live.flush();
            }
            r.channel = FileChannel.open(logs.path(r.runId), StandardOpenOption.READ);
        }
        while (e.requested() > 0) {
            byte[] chunk = read(r.channel);
            if (chunk != null) {
                e.emit(chunk);
                continue;
            }
            if (!r.follow) {
                return true;
            }
            RunLog live = logs.live(r.runId);
            if (live != null) {
                live.flush();
                chunk = read(r.channel);
                if (chunk != null) {
                    e.emit(chunk);
                    continue;
                }
                return false;
            }
            if (!logs.ended(r.runId)) {
                return false;
            }
            // the run has ended: whatever is left was written before, send it and finish
            if ((chunk = read(r.channel)) != null) {
                e.emit(chunk);
                continue;
            }
            return true;
        }
        return false;
    }

    private static byte[] read(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(CHUNK_BYTES);
        int n = ch.read(buf);
        if (n <= 0) {
            return null;
        }
        byte[] out = new byte[n];
        buf.flip().get(out);
        return out;
    }

    private boolean pumpDatabase(Reader r, MultiEmitter<? super byte[]> e, Map<UUID, RunLogs.Tail> tails) {
        if (e.requested() <= 0) {
            return false;
        }
        RunLogs.Tail t = tails.computeIfAbsent(r.runId, logs::tail);
        if (t == null) {
            return true;
        }
        byte[] bytes = t.bytes();
        long start = t.total() - bytes.length;
        if (r.sent < start && r.sent > 0) {
            e.emit(("... " + (start - r.sent) + " byte(s) not kept in the database\n").getBytes(StandardCharsets.UTF_8));
        }
        long from = Math.max(r.sent, start);
        if (from < t.total()) {
            byte[] out = new byte[(int) (t.total() - from)];
            System.arraycopy(bytes, (int) (from - start), out, 0, out.length);
            r.sent = t.total();
            e.emit(out);
        }
        return !r.follow || t.ended();
    }

    /** One reader of one run's log. State is touched by the pump thread only. */
    private static final class Reader {
        final UUID runId;
        final boolean follow;
        final String caller;
        volatile MultiEmitter<? super byte[]> emitter;
        Boolean fromFile;
        FileChannel channel;
        long sent;
        volatile boolean done;

        Reader(UUID runId, boolean follow, String caller) {
            this.runId = runId;
            this.follow = follow;
            this.caller = caller;
        }

        void closeFile() {
            FileChannel ch = channel;
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing to do
                }
            }
        }
    }
}
