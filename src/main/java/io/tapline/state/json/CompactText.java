package io.tapline.state.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * A stored JSON object re-printed in {@link PythonJson.Layout#COMPACT} token by token, without its
 * tree: how the state API answers a {@code GET} of a large state with bounded extra memory
 * (issue 31). The text written is exactly {@code PythonJson.write(PythonJson.parse(text), COMPACT)}:
 * strings and numbers are re-printed with the same code ({@link PythonJson#appendString},
 * {@link PythonJson#appendNumber}) after the same checks ({@link PythonJson#readValue}).
 *
 * <p>Where a token stream cannot give that text, {@link #length} says so (-1) and the caller
 * takes the tree path: a text that is not valid Python JSON (the tree path then reports the same
 * error), a root that is not an object, and a key repeated in one object (the tree keeps the first
 * position and the last value). Repeated keys are found with a 64-bit hash per key of each open
 * object (8 to 16 bytes a key); a hash collision only sends the read down the tree path.
 */
public final class CompactText {

    /** Characters gathered before they are handed on. */
    private static final int CHUNK = 8192;

    private CompactText() {
    }

    /**
     * The length in bytes of the compact text of {@code text}, or -1 when it must be printed from
     * its tree (see the class comment). Reads the whole text; builds no tree.
     */
    public static long length(String text) {
        long[] n = new long[1];
        try {
            return copy(text, chunk -> n[0] += chunk.length()) ? n[0] : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Writes the compact text of {@code text} (ASCII, hence UTF-8) to {@code out}; call only after
     * {@link #length} gave a length, which is then the number of bytes written.
     *
     * @throws IOException from {@code out}
     */
    public static void write(String text, OutputStream out) throws IOException {
        byte[] buffer = new byte[CHUNK + 64];
        boolean copied = copy(text, chunk -> {
            int n = chunk.length();
            byte[] b = n <= buffer.length ? buffer : new byte[n];
            for (int i = 0; i < n; i++) {
                b[i] = (byte) chunk.charAt(i);
            }
            out.write(b, 0, n);
        });
        if (!copied) {
            throw new IllegalStateException("CompactText.write called on a text length() refused");
        }
    }

    @FunctionalInterface
    private interface Sink {
        void accept(CharSequence chunk) throws IOException;
    }

    /** False when the root is not an object, a key repeats, or the text is not a single JSON value. */
    private static boolean copy(String text, Sink sink) throws IOException {
        if (text.isEmpty() || text.charAt(0) == '\uFEFF') {
            return false;
        }
        StringBuilder out = new StringBuilder(CHUNK + 256);
        try (JsonParser p = PythonJson.FACTORY.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            // per open container: whether it is an array, whether a value was written in it;
            // per open object: the hashes of its keys
            boolean[] array = new boolean[PythonJson.MAX_DEPTH + 2];
            boolean[] started = new boolean[PythonJson.MAX_DEPTH + 2];
            KeyHashes[] keys = new KeyHashes[PythonJson.MAX_DEPTH + 2];
            int depth = 0;
            out.append('{');
            keys[0] = new KeyHashes();
            JsonToken t;
            while (depth >= 0 && (t = p.nextToken()) != null) {
                if (t == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    if (!keys[depth].add(name)) {
                        return false; // a repeated key: the tree keeps its first place and last value
                    }
                    if (started[depth]) {
                        out.append(',');
                    }
                    started[depth] = true;
                    PythonJson.appendString(out, name);
                    out.append(':');
                    continue;
                }
                if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    out.append(t == JsonToken.END_OBJECT ? '}' : ']');
                    depth--;
                } else {
                    if (array[depth]) {
                        if (started[depth]) {
                            out.append(',');
                        }
                        started[depth] = true;
                    }
                    switch (t) {
                        case START_OBJECT -> {
                            out.append('{');
                            depth++;
                            array[depth] = false;
                            started[depth] = false;
                            keys[depth] = keys[depth] == null ? new KeyHashes() : keys[depth].reset();
                        }
                        case START_ARRAY -> {
                            out.append('[');
                            depth++;
                            array[depth] = true;
                            started[depth] = false;
                        }
                        case VALUE_STRING -> PythonJson.appendString(out, p.getText());
                        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> PythonJson.appendNumber(out, PythonJson.readValue(p, t));
                        case VALUE_TRUE -> out.append("true");
                        case VALUE_FALSE -> out.append("false");
                        case VALUE_NULL -> out.append("null");
                        default -> {
                            return false;
                        }
                    }
                }
                if (out.length() >= CHUNK) {
                    sink.accept(out);
                    out.setLength(0);
                }
            }
            if (depth >= 0 || p.nextToken() != null) {
                return false; // cut short, or data after the object ("Extra data")
            }
        }
        if (out.length() > 0) {
            sink.accept(out);
        }
        return true;
    }

    /**
     * The 64-bit hashes of the keys of one object, in an open-addressing table (0 marks a free
     * slot); {@link #add} is false for a hash already present. Also used by {@code HistoryJson}.
     */
    public static final class KeyHashes {
        private long[] table = new long[16];
        private int size;

        public KeyHashes reset() {
            if (table.length > 64) {
                table = new long[16];
            } else if (size > 0) {
                Arrays.fill(table, 0L);
            }
            size = 0;
            return this;
        }

        public boolean add(String key) {
            long h = hash(key);
            if ((size + 1) * 2 > table.length) {
                grow();
            }
            return insert(table, h);
        }

        private boolean insert(long[] t, long h) {
            int mask = t.length - 1;
            int i = (int) (h ^ (h >>> 32)) & mask;
            while (t[i] != 0) {
                if (t[i] == h) {
                    return false;
                }
                i = (i + 1) & mask;
            }
            t[i] = h;
            if (t == table) {
                size++;
            }
            return true;
        }

        private void grow() {
            long[] old = table;
            long[] bigger = new long[old.length * 2];
            for (long h : old) {
                if (h != 0) {
                    int mask = bigger.length - 1;
                    int i = (int) (h ^ (h >>> 32)) & mask;
                    while (bigger[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    bigger[i] = h;
                }
            }
            table = bigger;
        }

        /** FNV-1a over the chars, then MurmurHash3's finaliser; never 0. */
        private static long hash(String key) {
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < key.length(); i++) {
                h ^= key.charAt(i);
                h *= 0x100000001b3L;
            }
            h ^= h >>> 33;
            h *= 0xff51afd7ed558ccdL;
            h ^= h >>> 33;
            h *= 0xc4ceb93fe53a87e5L;
            h ^= h >>> 33;
            return h == 0 ? 1 : h;
        }
    }
}
