package io.tapline.connector;

import io.tapline.connector.SingerLineScanner.Outcome;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FastLineScanner} against {@link SingerLineScanner} as the reference: whatever the fast
 * path accepts, the reference accepts with the same outcome, type and stream and the same line
 * end; and the common Singer lines are accepted by the fast path rather than deferred.
 */
class FastLineScannerTest {

    private final SingerLineScanner reference = new SingerLineScanner();
    private final SingerLineScanner names = new SingerLineScanner();
    private final FastLineScanner fast = new FastLineScanner(names);
    private final Random random = new Random(15);

    /** The line in a buffer as the relay holds it: the sentinel after it, then arbitrary bytes. */
    private byte[] buffered(byte[] prefix, byte[] line) {
        byte[] b = new byte[prefix.length + line.length + 1 + FastLineScanner.SLACK];
        System.arraycopy(prefix, 0, b, 0, prefix.length);
        System.arraycopy(line, 0, b, prefix.length, line.length);
        b[prefix.length + line.length] = '\n';
        byte[] junk = "\"\\\n{}0 ".getBytes(StandardCharsets.US_ASCII);
        for (int i = prefix.length + line.length + 1; i < b.length; i++) {
            b[i] = junk[random.nextInt(junk.length)];
        }
        return b;
    }

    /** Runs both scanners on {@code line}; returns true if the fast path accepted it. */
    private boolean agree(byte[] line) {
        byte[] prefix = new byte[random.nextInt(9)];
        Arrays.fill(prefix, (byte) 'x');
        byte[] b = buffered(prefix, line);
        int from = prefix.length;
        int end = from;
        while (b[end] != '\n') {
            end++;
        }
        int result = fast.scan(b, from);
        if (result == FastLineScanner.DEFER) {
            return false;
        }
        String text = new String(line, StandardCharsets.UTF_8);
        assertEquals(end, result, () -> "line end of " + text);
        Outcome expected = reference.scan(b, from, end - from);
        assertEquals(expected, fast.outcome(), () -> text + " -> reference: " + reference.errorReason());
        assertEquals(reference.messageType(), fast.messageType(), text);
        assertEquals(reference.stream(), fast.stream(), text);
        assertTrue(reference.type() == null || reference.messageType() != MessageType.OTHER,
                () -> "accepted an unknown type: " + text);
        return true;
    }

    @Property(tries = 3000)
    void whatTheFastPathAcceptsTheReferenceAcceptsIdentically(@ForAll("lines") byte[] line,
                                                              @ForAll("mutations") List<int[]> mutations) {
        agree(line);
        byte[] mutated = line;
        for (int[] m : mutations) {
            mutated = mutate(mutated, m);
            agree(mutated);
        }
    }

    @Property(tries = 500)
    void everyPrefixOfALineAgrees(@ForAll("lines") byte[] line) {
        for (int length = 0; length <= line.length; length++) {
            agree(Arrays.copyOf(line, length));
        }
    }

    @Property(tries = 300)
    void everySingleByteReplacementOrDeletionAgrees(@ForAll("lines") byte[] line) {
        byte[] alphabet = "{}[]\":, \t\\u0e-.+\n\u0001x".getBytes(StandardCharsets.US_ASCII);
        for (int at = 0; at < line.length; at++) {
            agree(mutate(line, new int[] {0, at, 0}));
            for (byte value : alphabet) {
                agree(mutate(line, new int[] {2, at, value}));
            }
        }
    }

    @Test
    void commonSingerLinesTakeTheFastPath() {
        String[] lines = {
            "{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"id\":1,\"amount\":31.01,\"note\":\"a \\\"b\\\" \\u00e9\","
                    + "\"tags\":[\"a\",null,true,false,-1.5e-3,0,[],{}]},\"time_extracted\":\"2026-11-29T16:00:00Z\"}",
            "{\"type\": \"SCHEMA\", \"stream\": \"public-orders\", \"schema\": {\"type\": \"object\"}, \"key_properties\": [\"id\"]}",
            "{\"type\": \"STATE\", \"value\": {\"bookmarks\": {\"orders\": {\"updated_at\": \"2024-01-12T13:46:40Z\"}}}}",
            "{\"type\":\"ACTIVATE_VERSION\",\"stream\":\"s\",\"version\":1700000000000}",
            "{\"type\":\"BATCH\",\"stream\":\"s\",\"encoding\":{\"format\":\"jsonl\"},\"manifest\":[\"file:///a\"]}\r",
            "{\"stream\":\"no-type\",\"type\":7}", "  {}  ", "[1,2,{\"type\":\"x\"}]", "\"text\"", "-0.0E+10", "null", "",
            " \t\r",
        };
        for (String line : lines) {
            assertTrue(agree(line.getBytes(StandardCharsets.UTF_8)), line);
        }
    }

    @Test
    void rareShapesAreDeferredToTheReference() {
        String[] lines = {
            "{\"type\":\"METRIC\",\"stream\":\"s\"}", "{\"\\u0074ype\":\"RECORD\"}", "{\"type\":\"RE\\u0043ORD\"}",
            "{\"stream\":\"s\\u00e9\"}", "[NaN, Infinity, -Infinity]", "[".repeat(65) + "]".repeat(65),
            "{\"a\":1,}", "{\"a\" 1}", "01", "[1 2]", "\"\u0001\"", "{\"a\":tru}", "\"\\x\"", "{\"type\":\"RECORD\"",
        };
        for (String line : lines) {
            byte[] b = buffered(new byte[0], line.getBytes(StandardCharsets.UTF_8));
            assertEquals(FastLineScanner.DEFER, fast.scan(b, 0), line);
        }
    }

    @Test
    void aRepeatedStreamNameIsTheSameInstanceOnBothPaths() {
        byte[] fastLine = buffered(new byte[0], "{\"type\":\"RECORD\",\"stream\":\"orders\"}".getBytes(StandardCharsets.UTF_8));
        byte[] slowLine = "{\"type\":\"RECORD\",\"stream\":\"orders\",\"x\":NaN}".getBytes(StandardCharsets.UTF_8);
        fast.scan(fastLine, 0);
        String first = fast.stream();
        assertEquals(Outcome.OBJECT, names.scan(slowLine, 0, slowLine.length));
        assertSame(first, names.stream());
    }

    // ---- Generators ------------------------------------------------------------------------------

    @Provide
    Arbitrary<byte[]> lines() {
        Arbitrary<String> type = Arbitraries.of("RECORD", "SCHEMA", "STATE", "ACTIVATE_VERSION", "BATCH", "METRIC", "");
        Arbitrary<String> stream = Arbitraries.of("orders", "public-customers", "s", "", "é", "a\\\"b", "a\\u0062");
        Arbitrary<String> value = Arbitraries.of("1", "-2.5e+3", "0", "\"x\"", "\"\\u00e9\\n\"", "true", "false", "null",
                "[]", "{}", "[1,{\"type\":\"STATE\",\"stream\":\"n\"}]", "{\"a\":[{\"b\":\"c\"}]}", "NaN", "\"é\"");
        Arbitrary<String> sep = Arbitraries.of("", " ", "\t", " \r");
        return Combinators.combine(type, stream, value, sep, Arbitraries.integers().between(0, 5)).as((t, s, v, w, shape) -> {
            String line = switch (shape) {
                case 0 -> "{\"type\":" + w + "\"" + t + "\"," + w + "\"stream\":\"" + s + "\",\"record\":" + v + "}";
                case 1 -> "{\"record\":" + v + "," + w + "\"stream\":" + w + "\"" + s + "\"," + w + "\"type\":\"" + t + "\"}";
                case 2 -> "{\"type\":\"" + t + "\",\"type\":" + v + ",\"stream\":" + v + "}";
                case 3 -> w + "[" + v + "," + w + v + "]" + w;
                case 4 -> "{\"type\":\"" + t + "\",\"value\":{\"type\":\"x\",\"stream\":" + v + "}}" + w;
                default -> w + v + w;
            };
            return line.getBytes(StandardCharsets.UTF_8);
        });
    }

    @Provide
    Arbitrary<List<int[]>> mutations() {
        Arbitrary<int[]> one = Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 10_000),
                Arbitraries.of(toInts("{}[]\":,0123456789-+.eEtrufalsnNIy \t\r\n\\/u'x\u0001\u00e9"))).as((k, p, v) -> new int[] {k, p, v});
        return one.list().ofMinSize(1).ofMaxSize(4);
    }

    private static Integer[] toInts(String alphabet) {
        byte[] bytes = alphabet.getBytes(StandardCharsets.UTF_8);
        Integer[] out = new Integer[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = (int) bytes[i];
        }
        return out;
    }

    /** Deletes, inserts or replaces a byte, or cuts the line ({@code m = {kind, position, byte}}). */
    private static byte[] mutate(byte[] line, int[] m) {
        if (line.length == 0) {
            return m[0] == 1 ? new byte[] {(byte) m[2]} : line;
        }
        int at = Math.floorMod(m[1], line.length);
        byte[] out;
        switch (m[0]) {
            case 0 -> {
                out = new byte[line.length - 1];
                System.arraycopy(line, 0, out, 0, at);
                System.arraycopy(line, at + 1, out, at, line.length - at - 1);
            }
            case 1 -> {
                out = new byte[line.length + 1];
                System.arraycopy(line, 0, out, 0, at);
                out[at] = (byte) m[2];
                System.arraycopy(line, at, out, at + 1, line.length - at);
            }
            case 2 -> {
                out = line.clone();
                out[at] = (byte) m[2];
            }
            default -> out = Arrays.copyOf(line, at);
        }
        return out;
    }
}
