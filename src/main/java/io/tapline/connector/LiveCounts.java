package io.tapline.connector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The relay's counters: written by one thread (the relay) without locks, readable at any time by
 * other threads through {@link #snapshot()}.
 *
 * <p>Each counter is a {@code long} array element written with opaque mode by its only writer and
 * read with opaque mode by snapshots. Opaque access guarantees that a reader sees each counter
 * whole (never a torn value) and never going backwards, and that it eventually sees every update;
 * it does not order different counters, so a snapshot taken during a relay may, for example, count
 * a line's message before its bytes. A snapshot taken after {@link Relay#relay} returned (on any
 * thread that observed the return) is exact.
 *
 * <p>New streams are registered in a {@link ConcurrentHashMap}, which publishes the bucket safely.
 */
final class LiveCounts implements LineCounter {

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Index of the byte counter; message type counters are at their ordinals. */
    private static final int BYTES = MessageType.values().length;
    private static final int SLOTS = BYTES + 1;

    private record Bucket(String name, int order, long[] counters) {
    }

    private final ConcurrentHashMap<String, Bucket> streams = new ConcurrentHashMap<>();
    private final long[] withoutStream = new long[SLOTS];
    /** [0]: blank lines, [1]: their bytes. */
    private final long[] blank = new long[2];

    // Writer-only cache of the last streams seen, by identity: the scanner returns the same String
    // instance for a repeated stream name, and taps often interleave a few streams line by line.
    private static final int RECENT = 4;
    private final String[] recentStreams = new String[RECENT];
    private final long[][] recentCounters = new long[RECENT][];
    private int nextRecent;

    /** Counts one message of {@code bytes} bytes. Writer thread only. */
    @Override
    public void count(MessageType type, String stream, int bytes) {
        long[] counters;
        if (stream == null) {
            counters = withoutStream;
        } else {
            counters = recent(stream);
        }
        add(counters, type.ordinal(), 1);
        add(counters, BYTES, bytes);
    }

    /** Counts one blank line of {@code bytes} bytes. Writer thread only. */
    @Override
    public void countBlank(int bytes) {
        add(blank, 0, 1);
        add(blank, 1, bytes);
    }

    private long[] recent(String stream) {
        for (int i = 0; i < RECENT; i++) {
            if (recentStreams[i] == stream) {
                return recentCounters[i];
            }
        }
        long[] counters = countersOf(stream);
        recentStreams[nextRecent] = stream;
        recentCounters[nextRecent] = counters;
        nextRecent = (nextRecent + 1) % RECENT;
        return counters;
    }

    private long[] countersOf(String stream) {
        Bucket bucket = streams.get(stream);
        if (bucket == null) {
            bucket = new Bucket(stream, streams.size(), new long[SLOTS]);
            streams.put(stream, bucket);
        }
        return bucket.counters();
    }

    /** Adds everything {@code tally} counted. Writer thread only. */
    void add(Tally tally) {
        for (int k = 0; k < tally.size; k++) {
            addAll(recent(tally.streams[k]), tally.counters[k]);
        }
        addAll(withoutStream, tally.withoutStream);
        add(blank, 0, tally.blank[0]);
        add(blank, 1, tally.blank[1]);
    }

    private static void addAll(long[] counters, long[] deltas) {
        for (int i = 0; i < SLOTS; i++) {
            if (deltas[i] != 0) {
                add(counters, i, deltas[i]);
            }
        }
    }

    /**
     * Plain counters of one part of a chunk, kept by the thread that validates it and added to the
     * live counters by the relay ({@link #add(Tally)}) once the lines before that part are valid.
     * Streams are found by identity first (the scanners return one instance per name), then by
     * equality; a chunk names few streams.
     */
    static final class Tally implements LineCounter {
        private String[] streams = new String[8];
        private long[][] counters = new long[8][];
        private int size;
        private final long[] withoutStream = new long[SLOTS];
        private final long[] blank = new long[2];

        @Override
        public void count(MessageType type, String stream, int bytes) {
            long[] c = stream == null ? withoutStream : of(stream);
            c[type.ordinal()]++;
            c[BYTES] += bytes;
        }

        @Override
        public void countBlank(int bytes) {
            blank[0]++;
            blank[1] += bytes;
        }

        private long[] of(String stream) {
            for (int k = 0; k < size; k++) {
                if (streams[k] == stream) {
                    return counters[k];
                }
            }
            for (int k = 0; k < size; k++) {
                if (streams[k].equals(stream)) {
                    return counters[k];
                }
            }
            if (size == streams.length) {
                streams = Arrays.copyOf(streams, size * 2);
                counters = Arrays.copyOf(counters, size * 2);
            }
            streams[size] = stream;
            long[] c = counters[size];
            if (c == null) {
                c = new long[SLOTS];
                counters[size] = c;
            }
            size++;
            return c;
        }

        /** Forgets everything counted (keeps the arrays; drops them after a chunk with many streams). */
        void clear() {
            if (streams.length > 64) {
                streams = new String[8];
                counters = new long[8][];
            } else {
                for (int k = 0; k < size; k++) {
                    streams[k] = null;
                    Arrays.fill(counters[k], 0);
                }
            }
            size = 0;
            Arrays.fill(withoutStream, 0);
            Arrays.fill(blank, 0);
        }
    }

    private static void add(long[] counters, int index, long delta) {
        // Single writer: a plain read of its own value is exact.
        LONGS.setOpaque(counters, index, counters[index] + delta);
    }

    private static long read(long[] counters, int index) {
        return (long) LONGS.getOpaque(counters, index);
    }

    /** A snapshot of all counters; callable from any thread. */
    StreamCounts snapshot() {
        List<Bucket> buckets = new ArrayList<>(streams.values());
        buckets.sort(Comparator.comparingInt(Bucket::order));
        Map<String, MessageCounts> byStream = new LinkedHashMap<>();
        for (Bucket bucket : buckets) {
            byStream.put(bucket.name(), messageCounts(bucket.counters()));
        }
        return new StreamCounts(byStream, messageCounts(withoutStream), read(blank, 0), read(blank, 1));
    }

    private static MessageCounts messageCounts(long[] c) {
        return new MessageCounts(
                read(c, MessageType.RECORD.ordinal()),
                read(c, MessageType.SCHEMA.ordinal()),
                read(c, MessageType.STATE.ordinal()),
                read(c, MessageType.ACTIVATE_VERSION.ordinal()),
                read(c, MessageType.BATCH.ordinal()),
                read(c, MessageType.OTHER.ordinal()),
                read(c, BYTES));
    }
}
