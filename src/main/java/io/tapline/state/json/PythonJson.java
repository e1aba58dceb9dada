package io.tapline.state.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * JSON exactly as CPython 3's {@code json} module reads and writes it with default options, which is
 * what Meltano 4.2.2 uses for every state it stores, prints and hands to taps (meltano-state.md
 * §1a, §1b, §1d, §6.5).
 *
 * <p><b>Value model.</b> Jackson trees built from {@link JsonNodeFactory#instance}: objects are
 * {@link ObjectNode} (insertion-ordered, like a Python dict), integers are {@link IntNode}, {@link
 * LongNode} or {@link BigIntegerNode} (the narrowest that fits, like Python's unbounded {@code int}),
 * every number with a fraction or exponent is a {@link DoubleNode} (Python {@code float}).
 *
 * <p><b>Reading</b> ({@link #parse(String)}) follows {@code json.loads}:
 * <ul>
 *   <li>the bare tokens {@code NaN}, {@code Infinity} and {@code -Infinity} are accepted (and no
 *       other spelling such as {@code +Infinity} or {@code -INF});</li>
 *   <li>a duplicate key keeps the position of its first occurrence and the value of its last;</li>
 *   <li>{@code 1e5} reads as the float {@code 100000.0}; {@code 1e400} as {@code Infinity};</li>
 *   <li>an integer literal with more than 4300 digits is rejected, like Python's default
 *       {@code int_max_str_digits} (so a value Meltano cannot load is not loaded here either);</li>
 *   <li>only space, tab, LF and CR are whitespace; empty input, trailing data, unescaped control
 *       characters in strings, comments, single quotes and trailing commas are errors;</li>
 *   <li>nesting deeper than 1000 levels is an error (Python stops at about the same depth with
 *       {@code RecursionError}); strings and numbers have no length limit besides memory.</li>
 * </ul>
 *
 * <p><b>Writing</b> ({@link #write(JsonNode, Layout)}) reproduces {@code json.dumps} byte for byte
 * with {@code ensure_ascii=True}, {@code allow_nan=True}, keys in insertion order (not sorted) and
 * the separators of the chosen {@link Layout}. The output is always pure ASCII.
 *
 * <p>All methods are thread-safe.
 */
public final class PythonJson {

    /**
     * The three {@code json.dumps} layouts Meltano uses. None adds a trailing newline.
     */
    public enum Layout {
        /**
         * {@code separators=(",", ":")}: {@code meltano state get} (default {@code --format=json}) and
         * {@code state export} (meltano-state.md §1b, §6.5).
         */
        COMPACT(",", ":", -1),
        /**
         * Python's defaults, {@code ", "} and {@code ": "} on one line: Meltano's {@code state.json}
         * records, the DB columns and {@code runs.payload} (meltano-state.md §1d, §6.5).
         */
        DEFAULT(", ", ": ", -1),
        /**
         * {@code indent=2}: the tap's {@code --state} file and {@code state get --format=pretty}
         * (meltano-state.md §1a). Items end with {@code ","} plus a newline, keys are followed by
         * {@code ": "}, empty containers stay {@code {}} and {@code []}.
         */
        INDENT2(",", ": ", 2);

        final String itemSeparator;
        final String keySeparator;
        final int indent;

        Layout(String itemSeparator, String keySeparator, int indent) {
            this.itemSeparator = itemSeparator;
            this.keySeparator = keySeparator;
            this.indent = indent;
        }
    }

    /** Python's {@code sys.int_info.default_max_str_digits}. */
    static final int MAX_INT_DIGITS = 4300;

    /** Python's recursion limit, which bounds {@code json.loads} nesting. */
    static final int MAX_DEPTH = 1000;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** The parser settings of {@link #parse}; shared with {@link StoredJson}. */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE)
                    .maxNestingDepth(MAX_DEPTH)
                    .build())
            .build();

    private PythonJson() {
    }

    // ------------------------------------------------------------------------------------------
    // Reading

    /**
     * Parses JSON text as Python's {@code json.loads(str)} does (see the class comment).
     *
     * @param text the whole document; a leading U+FEFF is an error, as in Python
     * @return the value: any JSON value, not only objects
     * @throws InvalidJsonException when Python would raise {@code JSONDecodeError} or
     *     {@code ValueError}; the message names line and column
     */
    public static JsonNode parse(String text) {
        Objects.requireNonNull(text, "text");
        char[] chars = text.toCharArray();
        return parseChars(chars, chars.length);
    }

    /**
     * Parses UTF-8 bytes as Python's {@code json.loads(bytes)} does for UTF-8 input: one leading
     * UTF-8 byte order mark is skipped ({@code utf-8-sig}), encoded surrogates decode to lone
     * surrogates ({@code surrogatepass}), any other ill-formed UTF-8 is an error. (Python would also
     * detect UTF-16 and UTF-32 input; Meltano never hands it bytes, so neither is supported.)
     *
     * @throws InvalidJsonException for ill-formed UTF-8 (position in bytes) or invalid JSON
     */
    public static JsonNode parse(byte[] utf8) {
        Objects.requireNonNull(utf8, "utf8");
        int from = hasUtf8Bom(utf8) ? 3 : 0;
        int[] length = new int[1];
        char[] chars = PythonUtf8.decodeStrict(utf8, from, utf8.length, length);
        return parseChars(chars, length[0]);
    }

    /**
     * Parses one line of target output the way Meltano does: {@code line.decode(errors="replace")}
     * (each ill-formed UTF-8 subpart becomes one U+FFFD, exactly as in CPython) followed by {@code
     * json.loads(str)}. A byte order mark is not skipped: Python rejects it.
     *
     * @throws InvalidJsonException when the decoded text is not valid JSON
     */
    public static JsonNode parseLenientUtf8(byte[] utf8) {
        Objects.requireNonNull(utf8, "utf8");
        int[] length = new int[1];
        char[] chars = PythonUtf8.decodeReplacing(utf8, 0, utf8.length, length);
        return parseChars(chars, length[0]);
    }

    static boolean hasUtf8Bom(byte[] b) {
        return b.length >= 3 && b[0] == (byte) 0xEF && b[1] == (byte) 0xBB && b[2] == (byte) 0xBF;
    }

    private static JsonNode parseChars(char[] chars, int length) {
        if (length > 0 && chars[0] == '\uFEFF') {
            throw new InvalidJsonException("Unexpected UTF-8 BOM (decode using utf-8-sig)", 1, 1, 0, "char", null);
        }
        try (JsonParser p = FACTORY.createParser(chars, 0, length)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw at("Expecting value", p.currentLocation(), null);
            }
            JsonNode value = readValue(p, first);
            if (p.nextToken() != null) {
                throw at("Extra data", p.currentTokenLocation(), null);
            }
            return value;
        } catch (JsonProcessingException e) {
            throw at(shorten(e.getOriginalMessage()), e.getLocation(), e);
        } catch (IOException e) {
            // a char[] source does no I/O
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the value that starts at {@code token} (the parser's current token) into a tree. */
    static JsonNode readValue(JsonParser p, JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT: {
                ObjectNode object = NODES.objectNode();
                String name;
                while ((name = p.nextFieldName()) != null) {
                    // put() on a LinkedHashMap keeps the first position of a repeated key
                    object.replace(name, readValue(p, p.nextToken()));
                }
                return object;
            }
            case START_ARRAY: {
                ArrayNode array = NODES.arrayNode();
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    array.add(readValue(p, t));
                }
                return array;
            }
            case VALUE_STRING:
                return NODES.textNode(p.getText());
            case VALUE_NUMBER_INT:
                return readInteger(p);
            case VALUE_NUMBER_FLOAT:
                return readFloat(p);
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw at("Unexpected token " + token, p.currentTokenLocation(), null);
        }
    }

    private static JsonNode readInteger(JsonParser p) throws IOException {
        int digits = p.getTextLength();
        if (digits > 9) {
            if (p.getTextCharacters()[p.getTextOffset()] == '-') {
                digits--;
            }
            if (digits > MAX_INT_DIGITS) {
                throw at("Exceeds the limit (" + MAX_INT_DIGITS + " digits) for integer string conversion: value has "
                        + digits + " digits", p.currentTokenLocation(), null);
            }
        }
        switch (p.getNumberType()) {
            case INT:
                return IntNode.valueOf(p.getIntValue());
            case LONG:
                return LongNode.valueOf(p.getLongValue());
            default:
                return BigIntegerNode.valueOf(p.getBigIntegerValue());
        }
    }

    private static JsonNode readFloat(JsonParser p) throws IOException {
        double value = p.getDoubleValue();
        if (!Double.isFinite(value)) {
            // Either an overflowing literal such as 1e400 (Python: inf) or a named token. Jackson
            // also accepts +Infinity, +INF and -INF; Python accepts only these three.
            String text = p.getText();
            char c = text.charAt(0);
            boolean named = c == '+' || c == 'N' || c == 'I' || (c == '-' && text.length() > 1 && text.charAt(1) > '9');
            if (named && !text.equals("NaN") && !text.equals("Infinity") && !text.equals("-Infinity")) {
                throw at("Expecting value", p.currentTokenLocation(), null);
            }
        }
        return DoubleNode.valueOf(value);
    }

    /** Drops the parts of Jackson's messages that are noise here (source description, value list). */
    static String shorten(String message) {
        if (message == null) {
            return "Invalid JSON";
        }
        String m = message;
        int marker = m.indexOf(" (start marker at ");
        if (marker >= 0) {
            int close = m.indexOf("])", marker);
            m = close >= 0 ? m.substring(0, marker) + m.substring(close + 2) : m.substring(0, marker);
        }
        int list = m.indexOf(" (JSON String, Number");
        if (list >= 0) {
            int close = m.indexOf("'false')", list);
            String head = m.substring(0, list);
            if (head.endsWith(" a valid value")) {
                head = head.substring(0, head.length() - " a valid value".length());
            }
            m = head + " a JSON value" + (close >= 0 ? m.substring(close + 8) : "");
        }
        m = m.replace("end-of-inputNo digit", "end-of-input: no digit");
        int newline = m.indexOf('\n');
        return newline >= 0 ? m.substring(0, newline) : m;
    }

    /** The exception for a problem at {@code loc}, with line, column and offset. */
    static InvalidJsonException at(String reason, JsonLocation loc, Throwable cause) {
        if (loc == null) {
            return new InvalidJsonException(reason, -1, -1, -1, "char", cause);
        }
        return new InvalidJsonException(reason, loc.getLineNr(), loc.getColumnNr(), loc.getCharOffset(), "char", cause);
    }

    // ------------------------------------------------------------------------------------------
    // Writing

    /**
     * Serialises like Python's {@code json.dumps(value, ...)} with the given layout's separators.
     *
     * <p>Accepted nodes: objects, arrays, text, booleans, null and numbers. Integral numbers of any
     * size are written in full (Python itself refuses to print more than 4300 digits, and {@link
     * #parse} refuses to read them); {@code DoubleNode} as Python's {@code float.__repr__} ({@link
     * #repr(double)}), {@code FloatNode} widened to double, {@code DecimalNode} as the double nearest
     * to it (which is what Python would hold after reading it). Strings are escaped with
     * {@code ensure_ascii}: {@code \"}, {@code \\}, {@code \n}, {@code \r}, {@code \t}, {@code \b},
     * {@code \f}, and a backslash-u escape with four lowercase hex digits for every other char
     * outside 0x20-0x7E (DEL included), astral characters as two surrogate escapes; {@code /} is
     * not escaped.
     *
     * <p>The writer recurses once per nesting level; trees from {@link #parse} are at most 1000
     * levels deep.
     *
     * @return ASCII text without trailing newline
     * @throws IllegalArgumentException for binary, POJO or missing nodes, which JSON cannot hold
     */
    public static String write(JsonNode value, Layout layout) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(layout, "layout");
        PythonJsonWriter w = new PythonJsonWriter(new StringBuilder(256), layout, null);
        w.value(value, 0);
        return w.out.toString();
    }

    /**
     * Like {@link #write(JsonNode, Layout)}, appending to {@code out} in chunks of about 8 KiB. On
     * an exception, part of the text may already have been appended.
     *
     * @throws IOException from {@code out}
     * @throws IllegalArgumentException as {@link #write(JsonNode, Layout)}
     */
    public static void write(JsonNode value, Layout layout, Appendable out) throws IOException {
        Objects.requireNonNull(out, "out");
        stream(value, layout, out::append);
    }

    /**
     * Like {@link #write(JsonNode, Layout)}, writing the ASCII (hence also UTF-8) bytes to {@code out}
     * in chunks of about 8 KiB. The stream is neither flushed nor closed. On an exception, part of
     * the bytes may already have been written (write to a temporary file and rename, §6.8).
     *
     * @throws IOException from {@code out}
     * @throws IllegalArgumentException as {@link #write(JsonNode, Layout)}
     */
    public static void write(JsonNode value, Layout layout, OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        byte[] buffer = new byte[PythonJsonWriter.CHUNK + 64];
        stream(value, layout, chunk -> {
            int n = chunk.length();
            byte[] b = n <= buffer.length ? buffer : new byte[n];
            for (int i = 0; i < n; i++) {
                b[i] = (byte) chunk.charAt(i);
            }
            out.write(b, 0, n);
        });
    }

    private static void stream(JsonNode value, Layout layout, PythonJsonWriter.Sink sink) throws IOException {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(layout, "layout");
        PythonJsonWriter w = new PythonJsonWriter(new StringBuilder(PythonJsonWriter.CHUNK + 64), layout, sink);
        try {
            w.value(value, 0);
            w.drain();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Python's {@code repr(float)}: the shortest decimal that reads back as the same double (the
     * closest one when several are equally short), in fixed notation when the decimal exponent is
     * from -4 to 15 ({@code 100000.0}, {@code 0.0001}, {@code 1.0}) and in scientific notation
     * otherwise, with a signed exponent of at least two digits ({@code 1e+16}, {@code 1e-05},
     * {@code 1.2345678901234568e+17}). Zero keeps its sign ({@code -0.0}); non-finite values are
     * spelled as {@code json.dumps} does: {@code NaN}, {@code Infinity}, {@code -Infinity}.
     *
     * <p>Java 17's {@code Double.toString} is not always the shortest ({@code 4.9E-324} for
     * Python's {@code 5e-324}), so the digits are computed here.
     */
    public static String repr(double value) {
        StringBuilder sb = new StringBuilder(24);
        PythonJsonWriter.appendFloat(sb, value);
        return sb.toString();
    }

    /** Appends a string as {@code json.dumps} writes it with {@code ensure_ascii} (quotes included). */
    public static void appendString(StringBuilder out, String value) {
        PythonJsonWriter.appendString(out, value);
    }

    /**
     * Appends a number node as {@code json.dumps} prints it: integers in full, floats as
     * {@link #repr(double)} (also used by {@link CompactText}).
     */
    static void appendNumber(StringBuilder out, JsonNode node) {
        PythonJsonWriter.appendNumber(out, node);
    }
}
