package io.tapline.state.json;

import java.util.Objects;

/**
 * UTF-8 decoding with the three error modes of Python 3 that matter to Meltano.
 *
 * <ul>
 *   <li><b>replace</b> ({@code bytes.decode("utf-8", errors="replace")}, used by Meltano on every
 *       line a target prints): each maximal ill-formed subpart becomes one U+FFFD, as in the
 *       Unicode standard's "best practice" (Table 3-8). An encoded surrogate {@code ED A0 80}
 *       gives three U+FFFD, as in Python; the JDK decoder gives one, hence this class.</li>
 *   <li><b>strict with surrogatepass</b> (what {@code json.loads(bytes)} does): ill-formed input is
 *       an error, except that encoded surrogates {@code ED A0..BF 80..BF} decode to lone UTF-16
 *       surrogates.</li>
 *   <li><b>strict</b> ({@code bytes.decode("utf-8")}, a text-mode {@code open()}): every ill-formed
 *       sequence, encoded surrogates included, is an error ({@link #decodeStrict}: request bodies
 *       and files read from the shared Meltano directory).</li>
 * </ul>
 */
public final class PythonUtf8 {

    private static final char REPLACEMENT = '\uFFFD';

    private PythonUtf8() {
    }

    /** Decodes with Python's {@code errors="replace"}; never fails. */
    static char[] decodeReplacing(byte[] in, int from, int to, int[] lengthOut) {
        return decode(in, from, to, lengthOut, true);
    }

    /**
     * Decodes with Python's {@code errors="surrogatepass"}.
     *
     * @throws InvalidJsonException at the first ill-formed sequence
     */
    static char[] decodeStrict(byte[] in, int from, int to, int[] lengthOut) {
        return decode(in, from, to, lengthOut, false);
    }

    private static char[] decode(byte[] in, int from, int to, int[] lengthOut, boolean replace) {
        // Every byte yields at most one char, except 4-byte sequences (2 chars for 4 bytes).
        char[] out = new char[to - from];
        int n = 0;
        int i = from;
        while (i < to) {
            int b = in[i];
            if (b >= 0) {
                out[n++] = (char) b;
                i++;
                continue;
            }
            b &= 0xFF;
            int need;
            int lo2 = 0x80;
            int hi2 = 0xBF;
            int cp;
            if (b >= 0xC2 && b <= 0xDF) {
                need = 1;
                cp = b & 0x1F;
            } else if (b >= 0xE0 && b <= 0xEF) {
                need = 2;
                cp = b & 0x0F;
                if (b == 0xE0) {
                    lo2 = 0xA0;
                } else if (b == 0xED && replace) {
                    hi2 = 0x9F; // surrogates are ill-formed, except under surrogatepass
                }
            } else if (b >= 0xF0 && b <= 0xF4) {
                need = 3;
                cp = b & 0x07;
                if (b == 0xF0) {
                    lo2 = 0x90;
                } else if (b == 0xF4) {
                    hi2 = 0x8F;
                }
            } else {
                // 80..C1 and F5..FF never start a sequence
                if (!replace) {
                    throw error(in, from, i, "Invalid UTF-8 start byte 0x" + hex(b));
                }
                out[n++] = REPLACEMENT;
                i++;
                continue;
            }
            int j = i + 1;
            boolean ok = true;
            for (int k = 0; k < need; k++, j++) {
                int lo = k == 0 ? lo2 : 0x80;
                int hi = k == 0 ? hi2 : 0xBF;
                if (j >= to) {
                    ok = false;
                    break;
                }
                int c = in[j] & 0xFF;
                if (c < lo || c > hi) {
                    ok = false;
                    break;
                }
                cp = (cp << 6) | (c & 0x3F);
            }
            if (!ok) {
                if (!replace) {
                    throw error(in, from, i, j >= to
                            ? "Truncated UTF-8 sequence"
                            : "Invalid UTF-8 continuation byte 0x" + hex(in[j] & 0xFF));
                }
                // the maximal subpart [i, j) becomes a single replacement character
                out[n++] = REPLACEMENT;
                i = j;
                continue;
            }
            if (cp >= 0x10000) {
                out[n++] = Character.highSurrogate(cp);
                out[n++] = Character.lowSurrogate(cp);
            } else {
                out[n++] = (char) cp;
            }
            i = j;
        }
        lengthOut[0] = n;
        return out;
    }

    private static String hex(int b) {
        return b < 0x10 ? "0" + Integer.toHexString(b) : Integer.toHexString(b);
    }

    /**
     * Decodes a UTF-8 document strictly, as Python's {@code bytes.decode("utf-8")} and a text-mode
     * {@code open()} do: ill-formed sequences and encoded surrogates (CESU-8) are errors, not U+FFFD
     * or lone surrogates.
     *
     * @param skipBom skip one leading byte order mark, as {@code json.loads(bytes)} does (a request
     *     body); false keeps it as U+FEFF, which the parser then refuses, as {@code json.load} of a
     *     text file does (Meltano's read of {@code state.json})
     * @throws InvalidJsonException at the first ill-formed sequence (position in bytes)
     */
    public static String decodeStrict(byte[] utf8, boolean skipBom) {
        Objects.requireNonNull(utf8, "utf8");
        int from = skipBom && PythonJson.hasUtf8Bom(utf8) ? 3 : 0;
        java.nio.charset.CharsetDecoder decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(utf8, from, utf8.length - from);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(utf8.length - from);
        java.nio.charset.CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) {
            r = decoder.flush(out);
        }
        if (r.isError()) {
            int at = in.position();
            throw error(utf8, from, at, "Invalid UTF-8 byte 0x"
                    + String.format("%02x", utf8[at] & 0xFF));
        }
        return out.flip().toString();
    }

    private static InvalidJsonException error(byte[] in, int from, int at, String reason) {
        int line = 1;
        int lineStart = from;
        for (int k = from; k < at; k++) {
            if (in[k] == '\n') {
                line++;
                lineStart = k + 1;
            }
        }
        return new InvalidJsonException(reason, line, at - lineStart + 1, at - from, "byte", null);
    }
}
