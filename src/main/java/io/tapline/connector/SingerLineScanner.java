package io.tapline.connector;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Validates one line of a Singer stream as JSON and extracts the two top-level fields the relay
 * needs, {@code "type"} and {@code "stream"}, without building a tree.
 *
 * <p>Accepted syntax is RFC 8259 JSON plus the three constants Python's {@code json} module writes
 * for non-finite floats ({@code NaN}, {@code Infinity}, {@code -Infinity}), which taps written in
 * Python can emit. Everything else is rejected: truncated values, trailing characters, comments,
 * single quotes, trailing commas, leading zeros, unescaped control characters (below 0x20) inside
 * strings, invalid escapes. Whitespace is space, tab, CR and LF. Bytes 0x80 and above inside
 * strings are accepted without UTF-8 validation: the relay forwards bytes unchanged, so only the
 * structure matters. Nesting deeper than {@link #MAX_DEPTH} is rejected.
 *
 * <p>Extraction: when the value is an object, the values of its top-level keys {@code "type"} and
 * {@code "stream"} are decoded (escapes resolved; invalid UTF-8 becomes U+FFFD) if they are strings.
 * Keys are compared after decoding, so {@code "\u0074ype"} is {@code "type"}. When a key occurs
 * more than once the last occurrence wins (as in Python's {@code json.loads}); a non-string value
 * means "absent". Keys inside nested values are never picked up.
 *
 * <p>Allocation: scanning allocates nothing. The extracted {@code type} is a shared constant for
 * the five Singer types, and stream names are cached by their raw bytes (the last one seen, plus a
 * direct-mapped cache of {@value #STREAM_CACHE_SLOTS} slots for names up to
 * {@value #MAX_CACHED_NAME_BYTES} bytes), so a repeated stream name returns the same String
 * instance without allocating.
 *
 * <p>Not thread-safe: use one instance per thread. The results of a scan stay available until the
 * next call to {@link #scan}.
 */
public final class SingerLineScanner {

    /** What a scanned line turned out to be. */
    public enum Outcome {
        /** A valid JSON object; {@link #type()} and {@link #stream()} were extracted. */
        OBJECT,
        /** A valid JSON value that is not an object (array, string, number, literal). */
        VALUE,
        /** Empty, or only whitespace. */
        BLANK,
        /** Not valid JSON; see {@link #errorReason()} and {@link #errorPosition()}. */
        INVALID;

        /** True for {@link #OBJECT} and {@link #VALUE}. */
        public boolean isValid() {
            return this == OBJECT || this == VALUE;
        }
    }

    /** The deepest nesting of objects and arrays accepted (Python's json and Jackson stop at about 1,000). */
    public static final int MAX_DEPTH = 10_000;

    /** Stream names longer than this (in raw bytes) are decoded on every line instead of cached. */
    static final int MAX_CACHED_NAME_BYTES = 512;

    /** Slots of the direct-mapped stream name cache; a power of two. */
    static final int STREAM_CACHE_SLOTS = 256;

    static final String UNEXPECTED_END = "unexpected end of line";
    static final String UNEXPECTED_CHARACTER = "unexpected character";
    static final String TRAILING_CHARACTERS = "unexpected characters after the JSON value";
    static final String EXPECTED_KEY = "expected a string key";
    static final String EXPECTED_COLON = "expected ':' after a key";
    static final String EXPECTED_OBJECT_CONTINUATION = "expected ',' or '}'";
    static final String EXPECTED_ARRAY_CONTINUATION = "expected ',' or ']'";
    static final String UNTERMINATED_STRING = "unterminated string";
    static final String CONTROL_CHARACTER = "unescaped control character in a string";
    static final String INVALID_ESCAPE = "invalid escape sequence";
    static final String INVALID_NUMBER = "invalid number";
    static final String INVALID_LITERAL = "invalid literal";
    static final String TOO_DEEP = "nesting deeper than " + MAX_DEPTH + " levels";

    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");
    private static final byte[] NULL = ascii("null");
    private static final byte[] NAN = ascii("NaN");
    private static final byte[] INFINITY = ascii("Infinity");
    private static final byte[] MINUS_INFINITY = ascii("-Infinity");
    private static final byte[] TYPE_KEY = ascii("type");
    private static final byte[] STREAM_KEY = ascii("stream");

    /** True for bytes that may appear unescaped in a string and need no attention. */
    private static final boolean[] PLAIN_STRING_BYTE = new boolean[256];
    /** Value of a hex digit, or -1. */
    private static final byte[] HEX_VALUE = new byte[256];

    static {
        for (int c = 0; c < 256; c++) {
            PLAIN_STRING_BYTE[c] = c >= 0x20 && c != '"' && c != '\\';
            HEX_VALUE[c] = (byte) Character.digit(c, 16);
        }
        for (int c = 0x80; c < 256; c++) {
            HEX_VALUE[c] = -1;
        }
    }

    private static final int STATE_VALUE = 0;
    private static final int STATE_AFTER_VALUE = 1;
    private static final int STATE_KEY = 2;

    private static final int FIELD_NONE = 0;
    private static final int FIELD_TYPE = 1;
    private static final int FIELD_STREAM = 2;

    /** Open containers: '{' or '['. */
    private final byte[] containers = new byte[MAX_DEPTH];

    private int base;
    private boolean stringEscaped;
    private int typeStart = -1;
    private int typeEnd;
    private boolean typeEscaped;
    private int streamStart = -1;
    private int streamEnd;
    private boolean streamEscaped;

    private String type;
    private MessageType messageType = MessageType.OTHER;
    private String stream;
    private String errorReason;
    private int errorPosition = -1;

    private byte[] lastStreamKey;
    private String lastStreamName;
    private final byte[][] streamCacheKeys = new byte[STREAM_CACHE_SLOTS][];
    private final String[] streamCacheNames = new String[STREAM_CACHE_SLOTS];
    private byte[] lastOtherTypeKey;
    private String lastOtherType;

    /** Creates a scanner with empty caches (about 12 KiB of state). */
    public SingerLineScanner() {
    }

    /**
     * Scans {@code length} bytes of {@code line} starting at {@code offset}: one line without its
     * line terminator (a trailing CR is whitespace and therefore accepted).
     *
     * @return what the bytes are; afterwards {@link #type()}, {@link #messageType()},
     *         {@link #stream()}, {@link #errorReason()} and {@link #errorPosition()} describe them
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public Outcome scan(byte[] line, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, line.length);
        type = null;
        messageType = MessageType.OTHER;
        stream = null;
        errorReason = null;
        errorPosition = -1;
        typeStart = -1;
        streamStart = -1;
        base = offset;

        final byte[] b = line;
        final int end = offset + length;
        int i = skipWhitespace(b, offset, end);
        if (i == end) {
            return Outcome.BLANK;
        }
        final boolean isObject = b[i] == '{';
        int depth = 0;
        int state = STATE_VALUE;
        int field = FIELD_NONE;
        for (;;) {
            if (state == STATE_VALUE) {
                // Positioned on a non-whitespace byte (or the end).
                if (i >= end) {
                    return fail(i, UNEXPECTED_END);
                }
                byte c = b[i];
                int pendingField = field;
                field = FIELD_NONE;
                if (c == '"') {
                    int start = i + 1;
                    i = scanString(b, i, end);
                    if (i < 0) {
                        return Outcome.INVALID;
                    }
                    if (pendingField != FIELD_NONE) {
                        remember(pendingField, start, i - 1, stringEscaped);
                    }
                    state = STATE_AFTER_VALUE;
                    continue;
                }
                if (pendingField != FIELD_NONE) {
                    forget(pendingField);
                }
                if (c == '{' || c == '[') {
                    if (depth == MAX_DEPTH) {
                        return fail(i, TOO_DEEP);
                    }
                    containers[depth++] = c;
                    i = skipWhitespace(b, i + 1, end);
                    byte close = c == '{' ? (byte) '}' : (byte) ']';
                    if (i < end && b[i] == close) {
                        depth--;
                        i++;
                        state = STATE_AFTER_VALUE;
                    } else {
                        state = c == '{' ? STATE_KEY : STATE_VALUE;
                    }
                    continue;
                }
                i = scanScalar(b, i, end);
                if (i < 0) {
                    return Outcome.INVALID;
                }
                state = STATE_AFTER_VALUE;
            } else if (state == STATE_AFTER_VALUE) {
                i = skipWhitespace(b, i, end);
                if (depth == 0) {
                    if (i != end) {
                        return fail(i, TRAILING_CHARACTERS);
                    }
                    return finish(b, isObject);
                }
                byte container = containers[depth - 1];
                if (i >= end) {
                    return fail(i, UNEXPECTED_END);
                }
                byte c = b[i];
                if (c == ',') {
                    i = skipWhitespace(b, i + 1, end);
                    state = container == '{' ? STATE_KEY : STATE_VALUE;
                } else if (c == '}' && container == '{' || c == ']' && container == '[') {
                    depth--;
                    i++;
                } else {
                    return fail(i, container == '{' ? EXPECTED_OBJECT_CONTINUATION : EXPECTED_ARRAY_CONTINUATION);
                }
            } else {
                // STATE_KEY, positioned on a non-whitespace byte (or the end).
                if (i >= end) {
                    return fail(i, UNEXPECTED_END);
                }
                if (b[i] != '"') {
                    return fail(i, EXPECTED_KEY);
                }
                int start = i + 1;
                i = scanString(b, i, end);
                if (i < 0) {
                    return Outcome.INVALID;
                }
                if (depth == 1) {
                    field = fieldOf(b, start, i - 1, stringEscaped);
                }
                i = skipWhitespace(b, i, end);
                if (i >= end) {
                    return fail(i, UNEXPECTED_END);
                }
                if (b[i] != ':') {
                    return fail(i, EXPECTED_COLON);
                }
                i = skipWhitespace(b, i + 1, end);
                state = STATE_VALUE;
            }
        }
    }

    /** The decoded top-level {@code "type"} of the last scanned object; null when absent or not a string. */
    public String type() {
        return type;
    }

    /** {@link #type()} as a {@link MessageType}; {@link MessageType#OTHER} when absent or unknown. */
    public MessageType messageType() {
        return messageType;
    }

    /** The decoded top-level {@code "stream"} of the last scanned object; null when absent or not a string. */
    public String stream() {
        return stream;
    }

    /** Why the last scanned line is invalid (a short constant phrase); null unless it was {@link Outcome#INVALID}. */
    public String errorReason() {
        return errorReason;
    }

    /** 0-based byte position within the line where the last scan failed; -1 unless it was {@link Outcome#INVALID}. */
    public int errorPosition() {
        return errorPosition;
    }

    private static int skipWhitespace(byte[] b, int i, int end) {
        while (i < end) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
                break;
            }
            i++;
        }
        return i;
    }

    /** Scans the string whose opening quote is at {@code i}; returns the index after the closing quote, or -1. */
    private int scanString(byte[] b, int i, int end) {
        boolean escaped = false;
        int j = i + 1;
        for (;;) {
            j = Swar.skipPlainStringBytes(b, j, end);
            while (j < end && PLAIN_STRING_BYTE[b[j] & 0xFF]) {
                j++;
            }
            if (j >= end) {
                return failAt(j, UNTERMINATED_STRING);
            }
            byte c = b[j];
            if (c == '"') {
                stringEscaped = escaped;
                return j + 1;
            }
            if (c != '\\') {
                return failAt(j, CONTROL_CHARACTER);
            }
            escaped = true;
            if (j + 1 >= end) {
                return failAt(j + 1, UNTERMINATED_STRING);
            }
            switch (b[j + 1]) {
                case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> j += 2;
                case 'u' -> {
                    if (j + 6 > end
                            || HEX_VALUE[b[j + 2] & 0xFF] < 0 || HEX_VALUE[b[j + 3] & 0xFF] < 0
                            || HEX_VALUE[b[j + 4] & 0xFF] < 0 || HEX_VALUE[b[j + 5] & 0xFF] < 0) {
                        return failAt(j, INVALID_ESCAPE);
                    }
                    j += 6;
                }
                default -> {
                    return failAt(j, INVALID_ESCAPE);
                }
            }
        }
    }

    /** Scans a number or literal starting at {@code i}; returns the index after it, or -1. */
    private int scanScalar(byte[] b, int i, int end) {
        byte c = b[i];
        switch (c) {
            case 't':
                return literal(b, i, end, TRUE);
            case 'f':
                return literal(b, i, end, FALSE);
            case 'n':
                return literal(b, i, end, NULL);
            case 'N':
                return literal(b, i, end, NAN);
            case 'I':
                return literal(b, i, end, INFINITY);
            case '-':
                if (i + 1 < end && b[i + 1] == 'I') {
                    return literal(b, i, end, MINUS_INFINITY);
                }
                return scanNumber(b, i, end);
            default:
                if (c >= '0' && c <= '9') {
                    return scanNumber(b, i, end);
                }
                return failAt(i, UNEXPECTED_CHARACTER);
        }
    }

    private int literal(byte[] b, int i, int end, byte[] expected) {
        int n = expected.length;
        if (end - i < n || !sameBytes(b, i, i + n, expected)) {
            return failAt(i, INVALID_LITERAL);
        }
        return i + n;
    }

    /** {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?} */
    private int scanNumber(byte[] b, int i, int end) {
        int j = i;
        if (b[j] == '-') {
            j++;
        }
        if (j >= end) {
            return failAt(j, INVALID_NUMBER);
        }
        if (b[j] == '0') {
            j++;
        } else if (b[j] >= '1' && b[j] <= '9') {
            j = skipDigits(b, j + 1, end);
        } else {
            return failAt(j, INVALID_NUMBER);
        }
        if (j < end && b[j] == '.') {
            int digits = j + 1;
            j = skipDigits(b, digits, end);
            if (j == digits) {
                return failAt(j, INVALID_NUMBER);
            }
        }
        if (j < end && (b[j] == 'e' || b[j] == 'E')) {
            j++;
            if (j < end && (b[j] == '+' || b[j] == '-')) {
                j++;
            }
            int digits = j;
            j = skipDigits(b, digits, end);
            if (j == digits) {
                return failAt(j, INVALID_NUMBER);
            }
        }
        return j;
    }

    private static int skipDigits(byte[] b, int j, int end) {
        while (j < end && b[j] >= '0' && b[j] <= '9') {
            j++;
        }
        return j;
    }

    /** Which extracted field a top-level key names; the key's raw content is {@code b[start, end)}. */
    private static int fieldOf(byte[] b, int start, int end, boolean escaped) {
        int n = end - start;
        if (!escaped) {
            if (sameBytes(b, start, end, TYPE_KEY)) {
                return FIELD_TYPE;
            }
            if (sameBytes(b, start, end, STREAM_KEY)) {
                return FIELD_STREAM;
            }
            return FIELD_NONE;
        }
        // An escaped key needs at least 6 raw bytes per escape; "type"/"stream" decode from at most 36.
        if (n > 36) {
            return FIELD_NONE;
        }
        String key = decode(b, start, end, true);
        return key.equals("type") ? FIELD_TYPE : key.equals("stream") ? FIELD_STREAM : FIELD_NONE;
    }

    private void remember(int field, int start, int end, boolean escaped) {
        if (field == FIELD_TYPE) {
            typeStart = start;
            typeEnd = end;
            typeEscaped = escaped;
        } else {
            streamStart = start;
            streamEnd = end;
            streamEscaped = escaped;
        }
    }

    private void forget(int field) {
        if (field == FIELD_TYPE) {
            typeStart = -1;
        } else {
            streamStart = -1;
        }
    }

    private Outcome finish(byte[] b, boolean isObject) {
        if (!isObject) {
            return Outcome.VALUE;
        }
        if (typeStart >= 0) {
            resolveType(b, typeStart, typeEnd, typeEscaped);
        }
        if (streamStart >= 0) {
            stream = resolveStream(b, streamStart, streamEnd, streamEscaped);
        }
        return Outcome.OBJECT;
    }

    private void resolveType(byte[] b, int start, int end, boolean escaped) {
        if (!escaped) {
            for (MessageType candidate : MessageType.named()) {
                byte[] name = candidate.wireBytes();
                if (sameBytes(b, start, end, name)) {
                    messageType = candidate;
                    type = candidate.wireName();
                    return;
                }
            }
            if (lastOtherTypeKey != null && sameBytes(b, start, end, lastOtherTypeKey)) {
                type = lastOtherType;
                return;
            }
            if (end - start <= MAX_CACHED_NAME_BYTES) {
                lastOtherTypeKey = Arrays.copyOfRange(b, start, end);
                lastOtherType = decode(b, start, end, false);
                type = lastOtherType;
            } else {
                type = decode(b, start, end, false);
            }
            return;
        }
        String decoded = decode(b, start, end, true);
        messageType = MessageType.fromWireName(decoded);
        type = messageType == MessageType.OTHER ? decoded : messageType.wireName();
    }

    /**
     * The stream name whose raw string content is {@code b[start, end)} ({@code escaped}: it
     * contains escapes), from this scanner's name cache; shared with {@link FastLineScanner}.
     */
    String resolveStream(byte[] b, int start, int end, boolean escaped) {
        byte[] last = lastStreamKey;
        if (last != null && sameBytes(b, start, end, last)) {
            return lastStreamName;
        }
        if (end - start > MAX_CACHED_NAME_BYTES) {
            return decode(b, start, end, escaped);
        }
        int slot = hash(b, start, end) & (STREAM_CACHE_SLOTS - 1);
        byte[] key = streamCacheKeys[slot];
        String name;
        if (key != null && sameBytes(b, start, end, key)) {
            name = streamCacheNames[slot];
        } else {
            key = Arrays.copyOfRange(b, start, end);
            name = decode(b, start, end, escaped);
            streamCacheKeys[slot] = key;
            streamCacheNames[slot] = name;
        }
        lastStreamKey = key;
        lastStreamName = name;
        return name;
    }

    /**
     * True when {@code b[start, end)} equals {@code expected}. A plain loop: for the short keys,
     * types and stream names compared here on every line it is cheaper than
     * {@link Arrays#equals(byte[], int, int, byte[], int, int)}, whose range checks and vectorised
     * mismatch call took about a tenth of the relay's CPU time in a profile.
     */
    private static boolean sameBytes(byte[] b, int start, int end, byte[] expected) {
        int n = expected.length;
        if (end - start != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[start + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static int hash(byte[] b, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            h = 31 * h + b[i];
        }
        return h ^ (h >>> 16) ^ (h >>> 8);
    }

    /**
     * Decodes the raw content of a string that {@link #scanString} accepted: UTF-8 (malformed
     * bytes become U+FFFD) with JSON escapes resolved.
     */
    static String decode(byte[] b, int start, int end, boolean escaped) {
        if (!escaped) {
            return new String(b, start, end - start, StandardCharsets.UTF_8);
        }
        StringBuilder out = new StringBuilder(end - start);
        int run = start;
        int j = start;
        while (j < end) {
            if (b[j] != '\\') {
                j++;
                continue;
            }
            if (j > run) {
                out.append(new String(b, run, j - run, StandardCharsets.UTF_8));
            }
            byte e = b[j + 1];
            switch (e) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> out.append((char) (HEX_VALUE[b[j + 2] & 0xFF] << 12 | HEX_VALUE[b[j + 3] & 0xFF] << 8
                        | HEX_VALUE[b[j + 4] & 0xFF] << 4 | HEX_VALUE[b[j + 5] & 0xFF]));
                default -> out.append((char) e);
            }
            j += e == 'u' ? 6 : 2;
            run = j;
        }
        if (end > run) {
            out.append(new String(b, run, end - run, StandardCharsets.UTF_8));
        }
        return out.toString();
    }

    private Outcome fail(int position, String reason) {
        failAt(position, reason);
        return Outcome.INVALID;
    }

    private int failAt(int position, String reason) {
        errorReason = reason;
        errorPosition = position - base;
        return -1;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
