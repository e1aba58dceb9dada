package io.tapline.connector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The relay's fast path: validates the line that starts at a position of a read buffer in one
 * pass, finding its end ({@code '\n'}) on the way, and either accepts it with exactly the outcome,
 * {@code type} and {@code stream} that {@link SingerLineScanner} would give, or defers it to
 * {@link SingerLineScanner}.
 *
 * <p>It accepts only the common shapes: the JSON of {@link SingerLineScanner} without
 * {@code NaN}/{@code Infinity}, with nesting up to {@value #MAX_FAST_DEPTH} levels, no escapes in
 * the top-level keys or in the values of {@code "type"} and {@code "stream"}, and a {@code "type"}
 * that is absent, not a string, or one of the five Singer types. Everything else, and every
 * invalid line, is deferred ({@link #DEFER}); the caller then finds the line's end and asks
 * {@link SingerLineScanner}, which decides (and explains a rejection). So the fast path never
 * decides that a line is invalid, and it accepts a subset of what {@link SingerLineScanner}
 * accepts, with the same extracted fields.
 *
 * <p>Speed: no separate newline search, no per-line setup beyond a few locals, string contents
 * skipped 8 bytes at a time (little-endian long reads of the array) with no tail loop. This needs
 * the caller's buffer to hold a {@code '\n'} sentinel right after the valid bytes and at least
 * {@value #SLACK} readable bytes after the sentinel (their values do not matter): the scan stops at
 * the first {@code '\n'}, and word reads may look past it.
 *
 * <p>Not thread-safe: use one instance per thread; results stay valid until the next scan. Stream
 * names are resolved through the {@link SingerLineScanner} given at construction (its name cache),
 * so both paths return the same {@code String} instance for a repeated name.
 */
final class FastLineScanner {

    /** Returned by {@link #scan} when {@link SingerLineScanner} must decide the line. */
    static final int DEFER = -1;

    /** Readable bytes the buffer must have after the sentinel. */
    static final int SLACK = 16;

    /** Deepest nesting handled here (one bit per level); deeper lines are deferred. */
    static final int MAX_FAST_DEPTH = 64;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;
    private static final long SIX_BYTES = 0xFFFF_FFFF_FFFFL;

    private static final int TRUE = littleEndianInt("true");
    private static final int ALSE = littleEndianInt("alse");
    private static final int NULL = littleEndianInt("null");
    private static final int TYPE = littleEndianInt("type");
    private static final int STRE = littleEndianInt("stre");
    private static final int AM = 'a' | 'm' << 8;
    private static final long RECORD = littleEndianInt("RECO") & 0xFFFF_FFFFL | (long) ('R' | 'D' << 8) << 32;

    private static final int FIELD_NONE = 0;
    private static final int FIELD_TYPE = 1;
    private static final int FIELD_STREAM = 2;

    /** True for the characters allowed after a backslash, other than {@code u}. */
    private static final boolean[] SIMPLE_ESCAPE = new boolean[256];
    /** True for hex digits. */
    private static final boolean[] HEX = new boolean[256];

    static {
        for (char c : "\"\\/bfnrt".toCharArray()) {
            SIMPLE_ESCAPE[c] = true;
        }
        for (int c = 0; c < 128; c++) {
            HEX[c] = Character.digit(c, 16) >= 0;
        }
    }

    private final RecentStreams streams;
    private SingerLineScanner.Outcome outcome;
    private MessageType messageType;
    private String stream;

    /** A fast path whose stream names come from {@code names}'s cache. */
    FastLineScanner(SingerLineScanner names) {
        this.streams = new RecentStreams(names);
    }

    /** The outcome of the last accepted line: {@code OBJECT}, {@code VALUE} or {@code BLANK}. */
    SingerLineScanner.Outcome outcome() {
        return outcome;
    }

    /** {@link SingerLineScanner#messageType()} of the last accepted line. */
    MessageType messageType() {
        return messageType;
    }

    /** {@link SingerLineScanner#stream()} of the last accepted line. */
    String stream() {
        return stream;
    }

    /**
     * Scans the line starting at {@code from}.
     *
     * @param b    the buffer: a {@code '\n'} at or after {@code from} (the sentinel if no other),
     *             and {@value #SLACK} readable bytes after that sentinel
     * @param from the first byte of the line
     * @return the index of the {@code '\n'} that ends the accepted line (content
     *         {@code b[from, result)}), or {@link #DEFER}
     */
    int scan(byte[] b, int from) {
        int i = from;
        byte c = b[i];
        while (c <= ' ' && (c == ' ' || c == '\t' || c == '\r')) {
            c = b[++i];
        }
        if (c == '\n') {
            outcome = SingerLineScanner.Outcome.BLANK;
            messageType = MessageType.OTHER;
            stream = null;
            return i;
        }
        final boolean isObject = c == '{';
        long objects = 0; // bit 0: the innermost open container is an object
        int depth = 0;
        int field = FIELD_NONE;
        boolean key = false;
        int typeStart = -1;
        int typeEnd = 0;
        int streamStart = -1;
        int streamEnd = 0;
        for (;;) {
            // Positioned on a non-whitespace byte: a key when `key`, else a value.
            c = b[i];
            if (key) {
                key = false;
                if (c != '"') {
                    return DEFER;
                }
                int r = skipString(b, i + 1);
                if (r < 0) {
                    return DEFER;
                }
                int end = r >>> 1;
                if (depth == 1) {
                    if ((r & 1) != 0) {
                        return DEFER;
                    }
                    field = fieldOf(b, i + 1, end - 1);
                }
                i = end;
                c = b[i];
                while (c <= ' ' && (c == ' ' || c == '\t' || c == '\r')) {
                    c = b[++i];
                }
                if (c != ':') {
                    return DEFER;
                }
                c = b[++i];
                while (c <= ' ' && (c == ' ' || c == '\t' || c == '\r')) {
                    c = b[++i];
                }
            }
            int pending = field;
            field = FIELD_NONE;
            if (c == '"') {
                int r = skipString(b, i + 1);
                if (r < 0) {
                    return DEFER;
                }
                int end = r >>> 1;
                if (pending != FIELD_NONE) {
                    if ((r & 1) != 0) {
                        return DEFER;
                    }
                    if (pending == FIELD_TYPE) {
                        typeStart = i + 1;
                        typeEnd = end - 1;
                    } else {
                        streamStart = i + 1;
                        streamEnd = end - 1;
                    }
                }
                i = end;
            } else {
                if (pending == FIELD_TYPE) {
                    typeStart = -1;
                } else if (pending == FIELD_STREAM) {
                    streamStart = -1;
                }
                if (c == '{' || c == '[') {
                    if (depth == MAX_FAST_DEPTH) {
                        return DEFER;
                    }
                    boolean object = c == '{';
                    depth++;
                    objects = objects << 1 | (object ? 1 : 0);
                    c = b[++i];
                    while (c <= ' ' && (c == ' ' || c == '\t' || c == '\r')) {
                        c = b[++i];
                    }
                    if (c != (object ? '}' : ']')) {
                        key = object;
                        continue;
                    }
                    depth--;
                    objects >>>= 1;
                    i++;
                } else if (c >= '0' && c <= '9' || c == '-') {
                    i = skipNumber(b, i);
                    if (i < 0) {
                        return DEFER;
                    }
                } else if (c == 't' && (int) INT_LE.get(b, i) == TRUE || c == 'n' && (int) INT_LE.get(b, i) == NULL) {
                    i += 4;
                } else if (c == 'f' && (int) INT_LE.get(b, i + 1) == ALSE) {
                    i += 5;
                } else {
                    return DEFER;
                }
            }
            // After a value: whitespace, then the end of the line, a ',' or a closing bracket.
            for (;;) {
                c = b[i];
                while (c <= ' ' && (c == ' ' || c == '\t' || c == '\r')) {
                    c = b[++i];
                }
                if (depth == 0) {
                    if (c != '\n') {
                        return DEFER;
                    }
                    return finish(b, i, isObject, typeStart, typeEnd, streamStart, streamEnd);
                }
                boolean inObject = (objects & 1) != 0;
                if (c == ',') {
                    c = b[++i];
                    while (c <= ' ' && (c == ' ' || c == '\t' || c == '\r')) {
                        c = b[++i];
                    }
                    key = inObject;
                    break;
                }
                if (c != (inObject ? '}' : ']')) {
                    return DEFER;
                }
                depth--;
                objects >>>= 1;
                i++;
            }
        }
    }

    private int finish(byte[] b, int end, boolean isObject, int typeStart, int typeEnd, int streamStart,
                       int streamEnd) {
        if (!isObject) {
            outcome = SingerLineScanner.Outcome.VALUE;
            messageType = MessageType.OTHER;
            stream = null;
            return end;
        }
        MessageType type = MessageType.OTHER;
        if (typeStart >= 0) {
            type = namedType(b, typeStart, typeEnd);
            if (type == null) {
                return DEFER;
            }
        }
        outcome = SingerLineScanner.Outcome.OBJECT;
        messageType = type;
        stream = streamStart < 0 ? null : streams.name(b, streamStart, streamEnd);
        return end;
    }

    /** The named type spelled by {@code b[start, end)}, or null (the reference scanner decides). */
    private static MessageType namedType(byte[] b, int start, int end) {
        int n = end - start;
        if (n == 6 && ((long) LONG_LE.get(b, start) & SIX_BYTES) == RECORD) {
            return MessageType.RECORD;
        }
        for (MessageType candidate : MessageType.named()) {
            byte[] name = candidate.wireBytes();
            if (name.length == n && sameBytes(b, start, name)) {
                return candidate;
            }
        }
        return null;
    }

    private static boolean sameBytes(byte[] b, int start, byte[] expected) {
        for (int k = 0; k < expected.length; k++) {
            if (b[start + k] != expected[k]) {
                return false;
            }
        }
        return true;
    }

    /** Which extracted field the unescaped top-level key {@code b[start, end)} names. */
    private static int fieldOf(byte[] b, int start, int end) {
        int n = end - start;
        if (n == 4) {
            return (int) INT_LE.get(b, start) == TYPE ? FIELD_TYPE : FIELD_NONE;
        }
        if (n == 6 && (int) INT_LE.get(b, start) == STRE && (b[start + 4] | b[start + 5] << 8) == AM) {
            return FIELD_STREAM;
        }
        return FIELD_NONE;
    }

    /**
     * Skips a string's content from {@code j} (after the opening quote) to its closing quote.
     *
     * @return (index after the closing quote) &lt;&lt; 1, plus 1 if it contains an escape; -1 on a
     *         control character (the sentinel included) or an invalid escape
     */
    private static int skipString(byte[] b, int j) {
        int escaped = 0;
        for (;;) {
            long x = (long) LONG_LE.get(b, j);
            long quote = x ^ QUOTES;
            long backslash = x ^ BACKSLASHES;
            long found = ((quote - ONES) & ~quote | (backslash - ONES) & ~backslash | (x - SPACES) & ~x) & HIGHS;
            if (found == 0) {
                j += Long.BYTES;
                continue;
            }
            j += Long.numberOfTrailingZeros(found) >>> 3;
            byte c = b[j];
            if (c == '"') {
                return (j + 1) << 1 | escaped;
            }
            if (c != '\\') {
                return -1;
            }
            escaped = 1;
            byte e = b[j + 1];
            if (e == 'u') {
                if (!(HEX[b[j + 2] & 0xFF] && HEX[b[j + 3] & 0xFF] && HEX[b[j + 4] & 0xFF] && HEX[b[j + 5] & 0xFF])) {
                    return -1;
                }
                j += 6;
            } else if (SIMPLE_ESCAPE[e & 0xFF]) {
                j += 2;
            } else {
                return -1;
            }
        }
    }

    /** {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?} from {@code i}; the index after it, or -1. */
    private static int skipNumber(byte[] b, int i) {
        int j = b[i] == '-' ? i + 1 : i;
        int digits = digitRun(b, j);
        if (digits == 0 || digits > 1 && b[j] == '0') {
            return -1;
        }
        j += digits;
        byte c = b[j];
        if (c == '.') {
            digits = digitRun(b, ++j);
            if (digits == 0) {
                return -1;
            }
            j += digits;
            c = b[j];
        }
        if (c == 'e' || c == 'E') {
            c = b[++j];
            if (c == '+' || c == '-') {
                j++;
            }
            digits = digitRun(b, j);
            if (digits == 0) {
                return -1;
            }
            j += digits;
        }
        return j;
    }

    /**
     * The number of ASCII digits starting at {@code j}, eight bytes at a time: per byte {@code v}
     * below 0x80, {@code v + 0x50} has its high bit set iff {@code v >= '0'} and {@code v + 0x46}
     * iff {@code v > '9'} (no carry leaves a byte); bytes from 0x80 up are not digits.
     */
    private static int digitRun(byte[] b, int j) {
        int start = j;
        for (;;) {
            long x = (long) LONG_LE.get(b, j);
            long low = x & ~HIGHS;
            long notDigit = ~((low + 0x5050505050505050L) & ~(low + 0x4646464646464646L) & ~x) & HIGHS;
            if (notDigit != 0) {
                return j - start + (Long.numberOfTrailingZeros(notDigit) >>> 3);
            }
            j += Long.BYTES;
        }
    }

    private static int littleEndianInt(String four) {
        return four.charAt(0) | four.charAt(1) << 8 | four.charAt(2) << 16 | four.charAt(3) << 24;
    }
}
