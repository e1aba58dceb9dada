package io.tapline.connector;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The byte-level JSON helpers of {@link SingerLineScanner}: byte classes, whitespace and number
 * grammar, comparison, hashing and decoding of string content. Static and allocation-free (but
 * {@link #decode}), so that the JIT inlines them into the scanner's per-line loop.
 */
final class JsonBytes {

    /** True for bytes that may appear unescaped in a string and need no attention. */
    static final boolean[] PLAIN_STRING_BYTE = new boolean[256];
    /** Value of a hex digit, or -1. */
    static final byte[] HEX_VALUE = new byte[256];

    static {
        for (int c = 0; c < 256; c++) {
            PLAIN_STRING_BYTE[c] = c >= 0x20 && c != '"' && c != '\\';
            HEX_VALUE[c] = (byte) Character.digit(c, 16);
        }
        for (int c = 0x80; c < 256; c++) {
            HEX_VALUE[c] = -1;
        }
    }

    private JsonBytes() {
    }

    /** Index of the first byte at or after {@code i} that is not JSON whitespace. */
    static int skipWhitespace(byte[] b, int i, int end) {
        while (i < end) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
                break;
            }
            i++;
        }
        return i;
    }

    /**
     * End of the JSON number starting at {@code i}: the index after it, or {@code ~position} (negative)
     * of the first byte that breaks the grammar {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}.
     */
    static int numberEnd(byte[] b, int i, int end) {
        int j = i;
        if (b[j] == '-') {
            j++;
        }
        if (j >= end) {
            return ~j;
        }
        if (b[j] == '0') {
            j++;
        } else if (b[j] >= '1' && b[j] <= '9') {
            j = skipDigits(b, j + 1, end);
        } else {
            return ~j;
        }
        if (j < end && b[j] == '.') {
            int digits = j + 1;
            j = skipDigits(b, digits, end);
            if (j == digits) {
                return ~j;
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
                return ~j;
            }
        }
        return j;
    }

    static int skipDigits(byte[] b, int j, int end) {
        while (j < end && b[j] >= '0' && b[j] <= '9') {
            j++;
        }
        return j;
    }

    /**
     * True when {@code b[start, end)} equals {@code expected}. A plain loop: for the short keys,
     * types and stream names compared here on every line it is cheaper than
     * {@link Arrays#equals(byte[], int, int, byte[], int, int)}, whose range checks and vectorised
     * mismatch call took about a tenth of the relay's CPU time in a profile.
     */
    static boolean sameBytes(byte[] b, int start, int end, byte[] expected) {
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

    /** Hash of {@code b[start, end)} for the stream name cache, its low bits mixed. */
    static int hash(byte[] b, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            h = 31 * h + b[i];
        }
        return h ^ (h >>> 16) ^ (h >>> 8);
    }

    /**
     * Decodes the raw content of a string that the scanner accepted: UTF-8 (malformed
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

    /** The US-ASCII bytes of {@code s}. */
    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
