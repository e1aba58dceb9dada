package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Map;

/**
 * The writing half of {@link PythonJson}: one {@code json.dumps} run over a tree in a layout
 * (into a buffer, drained in chunks to a sink when streaming), with Python's string escapes
 * ({@code ensure_ascii}) and {@code float.__repr__}. Not thread-safe; each write makes its own.
 */
final class PythonJsonWriter {

    /** Where a streaming write sends its chunks. */
    @FunctionalInterface
    interface Sink {
        void accept(CharSequence chunk) throws IOException;
    }

    static final int CHUNK = 8192;

    final StringBuilder out;
    final Sink sink;
    final String itemSeparator;
    final String keySeparator;
    final int indent;

    PythonJsonWriter(StringBuilder out, PythonJson.Layout layout, Sink sink) {
        this.out = out;
        this.sink = sink;
        this.itemSeparator = layout.itemSeparator;
        this.keySeparator = layout.keySeparator;
        this.indent = layout.indent;
    }

    void value(JsonNode node, int depth) {
        switch (node.getNodeType()) {
            case OBJECT:
                object(node, depth);
                break;
            case ARRAY:
                array(node, depth);
                break;
            case STRING:
                appendString(out, node.textValue());
                break;
            case NUMBER:
                number(node);
                break;
            case BOOLEAN:
                out.append(node.booleanValue() ? "true" : "false");
                break;
            case NULL:
                out.append("null");
                break;
            default:
                throw new IllegalArgumentException("Not representable in JSON: " + node.getNodeType() + " node");
        }
        if (sink != null && out.length() >= CHUNK) {
            drain();
        }
    }

    private void object(JsonNode node, int depth) {
        if (node.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        newline(depth + 1);
        boolean first = true;
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (!first) {
                out.append(itemSeparator);
                newline(depth + 1);
            }
            first = false;
            appendString(out, e.getKey());
            out.append(keySeparator);
            value(e.getValue(), depth + 1);
        }
        newline(depth);
        out.append('}');
    }

    private void array(JsonNode node, int depth) {
        int n = node.size();
        if (n == 0) {
            out.append("[]");
            return;
        }
        out.append('[');
        newline(depth + 1);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(itemSeparator);
                newline(depth + 1);
            }
            value(node.get(i), depth + 1);
        }
        newline(depth);
        out.append(']');
    }

    private void newline(int depth) {
        if (indent >= 0) {
            out.append('\n');
            for (int i = depth * indent; i > 0; i--) {
                out.append(' ');
            }
        }
    }

    private void number(JsonNode node) {
        appendNumber(out, node);
    }

    void drain() {
        if (sink == null || out.length() == 0) {
            return;
        }
        try {
            sink.accept(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.setLength(0);
    }

    /**
     * Appends a number node as {@code json.dumps} prints it: integers in full, floats as
     * {@link PythonJson#repr(double)} (also used by {@link CompactText}).
     */
    static void appendNumber(StringBuilder out, JsonNode node) {
        switch (node.numberType()) {
            case INT:
                out.append(node.intValue());
                break;
            case LONG:
                out.append(node.longValue());
                break;
            case BIG_INTEGER:
                out.append(node.bigIntegerValue().toString());
                break;
            case FLOAT:
            case DOUBLE:
                appendFloat(out, node.doubleValue());
                break;
            case BIG_DECIMAL:
                // the nearest double, correctly rounded (BigDecimal.doubleValue is not on Java 17)
                appendFloat(out, Double.parseDouble(node.decimalValue().toString()));
                break;
            default:
                throw new IllegalArgumentException("Unsupported number type " + node.numberType());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Strings

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Short escapes by char code below 0x80; 0 means "printable, copy as is", 'u' means \\uXXXX. */
    private static final char[] ESCAPES = new char[128];

    static {
        for (int c = 0; c < 0x20; c++) {
            ESCAPES[c] = 'u';
        }
        ESCAPES[0x7F] = 'u';
        ESCAPES['"'] = '"';
        ESCAPES['\\'] = '\\';
        ESCAPES['\n'] = 'n';
        ESCAPES['\r'] = 'r';
        ESCAPES['\t'] = 't';
        ESCAPES['\b'] = 'b';
        ESCAPES['\f'] = 'f';
    }

    /** Python's {@code py_encode_basestring_ascii}: quotes and escapes one string. */
    static void appendString(StringBuilder out, String s) {
        out.append('"');
        int len = s.length();
        int run = 0;
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            char esc = c < 0x80 ? ESCAPES[c] : 'u';
            if (esc == 0) {
                continue;
            }
            if (i > run) {
                out.append(s, run, i);
            }
            out.append('\\');
            if (esc == 'u') {
                out.append('u').append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF])
                        .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
            } else {
                out.append(esc);
            }
            run = i + 1;
        }
        if (run < len) {
            out.append(s, run, len);
        }
        out.append('"');
    }

    // ------------------------------------------------------------------------------------------
    // Floats

    private static final MathContext[] NEAREST = new MathContext[18];
    private static final MathContext[] UP = new MathContext[18];
    private static final MathContext[] DOWN = new MathContext[18];

    static {
        for (int p = 1; p <= 17; p++) {
            NEAREST[p] = new MathContext(p, RoundingMode.HALF_EVEN);
            UP[p] = new MathContext(p, RoundingMode.UP);
            DOWN[p] = new MathContext(p, RoundingMode.DOWN);
        }
    }

    static void appendFloat(StringBuilder out, double d) {
        if (d != d) {
            out.append("NaN");
            return;
        }
        if (d == Double.POSITIVE_INFINITY) {
            out.append("Infinity");
            return;
        }
        if (d == Double.NEGATIVE_INFINITY) {
            out.append("-Infinity");
            return;
        }
        if (d == 0) {
            out.append(Double.doubleToRawLongBits(d) < 0 ? "-0.0" : "0.0");
            return;
        }
        if (d < 0) {
            out.append('-');
            d = -d;
        }
        if (d < 1e16 && d == (long) d) {
            // Below 1e16 an integral double's shortest repr is the integer itself, in fixed notation.
            out.append((long) d).append(".0");
            return;
        }
        BigDecimal shortest = shortest(d).stripTrailingZeros();
        String digits = shortest.unscaledValue().toString();
        int n = digits.length();
        int decpt = n - shortest.scale(); // value = 0.DIGITS * 10^decpt
        if (decpt <= -4 || decpt > 16) {
            out.append(digits.charAt(0));
            if (n > 1) {
                out.append('.').append(digits, 1, n);
            }
            int exp = decpt - 1;
            out.append('e').append(exp < 0 ? '-' : '+');
            int abs = Math.abs(exp);
            if (abs < 10) {
                out.append('0');
            }
            out.append(abs);
        } else if (decpt <= 0) {
            out.append("0.");
            for (int i = decpt; i < 0; i++) {
                out.append('0');
            }
            out.append(digits);
        } else if (decpt >= n) {
            out.append(digits);
            for (int i = n; i < decpt; i++) {
                out.append('0');
            }
            out.append(".0");
        } else {
            out.append(digits, 0, decpt).append('.').append(digits, decpt, n);
        }
    }

    /**
     * The shortest decimal that rounds back to {@code d} (positive, finite), and among those the
     * closest: David Gay's "mode 0", as used by CPython's {@code float.__repr__}.
     *
     * <p>Whether some p-digit decimal round-trips is monotonic in p, so p is found by bisection.
     * The JDK's {@code Double.toString} always round-trips, so its digit count bounds p from above;
     * it is usually exact or one too many, hence the first probe just below it.
     */
    private static BigDecimal shortest(double d) {
        BigDecimal exact = new BigDecimal(d);
        int lo = 1;
        int hi = significantDigits(Double.toString(d));
        int probe = hi - 1;
        BigDecimal found = null;
        while (lo < hi) {
            BigDecimal candidate = roundTrip(exact, d, probe);
            if (candidate != null) {
                hi = probe;
                found = candidate;
            } else {
                lo = probe + 1;
            }
            probe = (lo + hi) >>> 1;
        }
        if (found == null) {
            found = roundTrip(exact, d, hi);
        }
        if (found == null) {
            found = roundTrip(exact, d, 17); // not reached: 17 significant digits always round-trip
        }
        return found;
    }

    private static final double[] POWERS_OF_TEN = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };

    /**
     * The double nearest to a decimal of at most 17 digits. When the digits fit in 53 bits and the
     * power of ten is exact (up to 1e22), one IEEE multiplication or division is correctly rounded
     * (Clinger's fast path); otherwise the JDK's correctly rounding parser decides.
     */
    private static double toDouble(BigDecimal v) {
        int scale = v.scale();
        if (scale >= -22 && scale <= 22) {
            long digits = v.unscaledValue().longValue();
            if (digits < (1L << 53)) {
                return scale >= 0 ? digits / POWERS_OF_TEN[scale] : digits * POWERS_OF_TEN[-scale];
            }
        }
        return Double.parseDouble(v.toString());
    }

    /** Significant digits of a {@code Double.toString} result, e.g. 3 for "1.25E-7" and "100.5". */
    private static int significantDigits(String jdk) {
        int first = -1;
        int last = -1;
        int count = 0;
        for (int i = 0; i < jdk.length(); i++) {
            char c = jdk.charAt(i);
            if (c == 'E') {
                break;
            }
            if (c >= '0' && c <= '9') {
                if (c != '0') {
                    if (first < 0) {
                        first = count;
                    }
                    last = count;
                }
                count++;
            }
        }
        return first < 0 ? 1 : Math.min(17, last - first + 1);
    }

    /** The closest p-digit decimal that reads back as d, or null if none does. */
    private static BigDecimal roundTrip(BigDecimal exact, double d, int p) {
        BigDecimal nearest = exact.round(NEAREST[p]);
        if (toDouble(nearest) == d) {
            return nearest;
        }
        // The interval of decimals that read back as d is asymmetric at powers of two, so the
        // neighbour on the other side of d may still round-trip.
        BigDecimal other = exact.round(nearest.compareTo(exact) < 0 ? UP[p] : DOWN[p]);
        if (toDouble(other) == d) {
            return other;
        }
        return null;
    }
}
