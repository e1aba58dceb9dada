package io.tapline.connector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte searches eight bytes at a time ("SIMD within a register"), for the relay's hot loop.
 *
 * <p>Bytes are read as little-endian longs, so the lowest flagged byte of a word is the first in
 * memory. The flag expressions are the classic {@code (x - 0x01..) & ~x & 0x80..} zero-byte test:
 * the lowest flag always marks a byte that really matches (borrows only travel upwards), which is
 * all the callers use.
 */
final class Swar {

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    private Swar() {
    }

    /** Index of the first {@code '\n'} in {@code b[from, to)}, or -1. */
    static int indexOfNewline(byte[] b, int from, int to) {
        int i = from;
        for (; i <= to - Long.BYTES; i += Long.BYTES) {
            long x = (long) LONG_LE.get(b, i) ^ NEWLINES;
            long found = (x - ONES) & ~x & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Skips string content that needs no attention: returns the index of the first byte in
     * {@code b[from, to)} that is {@code '"'}, {@code '\\'} or below 0x20, or a position before it
     * from which fewer than eight bytes remain (callers finish byte by byte).
     */
    static int skipPlainStringBytes(byte[] b, int from, int to) {
        int i = from;
        for (; i <= to - Long.BYTES; i += Long.BYTES) {
            long x = (long) LONG_LE.get(b, i);
            long quote = x ^ QUOTES;
            long backslash = x ^ BACKSLASHES;
            long found = ((quote - ONES) & ~quote | (backslash - ONES) & ~backslash | (x - SPACES) & ~x) & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        return i;
    }
}
