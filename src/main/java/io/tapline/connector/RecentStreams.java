package io.tapline.connector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The fast path's stream names: the last {@value #RECENT_STREAMS} names seen, found by their raw
 * bytes with one {@code long} comparison for names up to 8 bytes; other names come from a
 * {@link SingerLineScanner}'s cache ({@link SingerLineScanner#resolveStream}), so both paths return
 * the same {@code String} instance for a repeated name. At most {@value #RECENT_STREAMS} keys of up
 * to {@link SingerLineScanner#MAX_CACHED_NAME_BYTES} bytes are kept. Not thread-safe.
 */
final class RecentStreams {

    /** Names remembered. */
    static final int RECENT_STREAMS = 8;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final SingerLineScanner names;
    private final int[] recentLengths = new int[RECENT_STREAMS];
    private final long[] recentHeads = new long[RECENT_STREAMS];
    private final byte[][] recentKeys = new byte[RECENT_STREAMS][];
    private final String[] recentNames = new String[RECENT_STREAMS];
    private int nextRecent;

    /** Names from {@code names}'s cache when not among the recent ones. */
    RecentStreams(SingerLineScanner names) {
        this.names = names;
        Arrays.fill(recentLengths, -1);
    }

    /**
     * The stream named by the unescaped string content {@code b[start, end)}: one of the recent
     * names when it matches (length and first eight bytes compared as one long, the rest byte by
     * byte), else from the scanner's cache. Reads up to 8 bytes from {@code start} even for a
     * shorter name: the caller's buffer must have them.
     */
    String name(byte[] b, int start, int end) {
        int n = end - start;
        if (n > SingerLineScanner.MAX_CACHED_NAME_BYTES) {
            return names.resolveStream(b, start, end, false);
        }
        long head = (long) LONG_LE.get(b, start);
        if (n < Long.BYTES) {
            head &= (1L << (n << 3)) - 1;
        }
        for (int k = 0; k < RECENT_STREAMS; k++) {
            if (recentLengths[k] == n && recentHeads[k] == head && (n <= Long.BYTES || sameTail(b, start, recentKeys[k]))) {
                return recentNames[k];
            }
        }
        String name = names.resolveStream(b, start, end, false);
        int k = nextRecent;
        nextRecent = (k + 1) % RECENT_STREAMS;
        recentLengths[k] = n;
        recentHeads[k] = head;
        recentKeys[k] = n > Long.BYTES ? Arrays.copyOfRange(b, start, end) : null;
        recentNames[k] = name;
        return name;
    }

    /** True when {@code b[start + 8, start + key.length)} equals the same bytes of {@code key}. */
    private static boolean sameTail(byte[] b, int start, byte[] key) {
        for (int k = Long.BYTES; k < key.length; k++) {
            if (b[start + k] != key[k]) {
                return false;
            }
        }
        return true;
    }
}
