package io.tapline.connector;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay with lines that take the fast path and lines deferred to {@link SingerLineScanner}
 * mixed in one read chunk: bytes forwarded unchanged, counts as the reference scanner gives them
 * line by line, and an invalid line in the middle of a chunk stops the relay with nothing after it
 * forwarded.
 */
class RelayFastPathTest {

    private static final String[] MIXED = {
        "{\"type\":\"SCHEMA\",\"stream\":\"orders\",\"schema\":{}}",
        "{\"type\": \"RECORD\", \"stream\": \"orders\", \"record\": {\"id\": 1, \"x\": \"\\u00e9\"}}",
        "{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"v\":NaN}}", // deferred, valid
        "",
        "  \r",
        "{\"type\":\"METRIC\",\"stream\":\"orders\"}", // deferred, valid
        "{\"\\u0074ype\":\"RECORD\",\"stream\":\"caf\\u00e9\"}", // deferred, valid
        "[" + "[".repeat(70) + "]".repeat(70) + "]", // deferred, valid
        "{\"type\":\"STATE\",\"value\":{\"b\":1}}\r",
        "{\"type\":\"RECORD\",\"stream\":\"customers\",\"record\":{\"id\":2}}",
    };

    private static InputStream chunked(byte[] data, int chunk) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    private static byte[] lines(String... lines) {
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The counts {@link SingerLineScanner} gives, line by line. */
    private static StreamCounts referenceCounts(String... lines) {
        SingerLineScanner scanner = new SingerLineScanner();
        LiveCounts counts = new LiveCounts();
        for (String line : lines) {
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            SingerLineScanner.Outcome outcome = scanner.scan(b, 0, b.length);
            assertTrue(outcome != SingerLineScanner.Outcome.INVALID, line);
            if (outcome == SingerLineScanner.Outcome.BLANK) {
                counts.countBlank(b.length + 1);
            } else {
                counts.count(scanner.messageType(), scanner.stream(), b.length + 1);
            }
        }
        return counts.snapshot();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void mixedFastAndDeferredLinesAreForwardedAndCountedAsTheReferenceCountsThem(int chunk) {
        String[] input = new String[MIXED.length * 50];
        for (int i = 0; i < input.length; i++) {
            input[i] = MIXED[i % MIXED.length];
        }
        byte[] bytes = lines(input);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RelayResult result = new Relay().relay(chunked(bytes, chunk), out);

        assertTrue(result.succeeded(), result::toString);
        assertArrayEquals(bytes, out.toByteArray());
        assertEquals(referenceCounts(input), result.counts());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 5})
    void anInvalidLineInTheMiddleOfAChunkForwardsNothingAfterIt(int validBefore) {
        String[] before = new String[validBefore * 2];
        for (int i = 0; i < before.length; i++) {
            before[i] = MIXED[i % MIXED.length];
        }
        String invalid = "{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"id\":1,}}";
        String after = "{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"id\":2}}";
        byte[] prefix = before.length == 0 ? new byte[0] : lines(before);
        byte[] input = concat(prefix, lines(invalid, after, after));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RelayResult result = new Relay().relay(chunked(input, Relay.READ_BUFFER_BYTES), out);

        RelayFailure failure = result.failure().orElseThrow();
        assertEquals(RelayFailure.Kind.INVALID_LINE, failure.kind());
        assertEquals(before.length + 1, failure.lineNumber());
        SingerLineScanner reference = new SingerLineScanner();
        byte[] bad = invalid.getBytes(StandardCharsets.UTF_8);
        reference.scan(bad, 0, bad.length);
        assertTrue(failure.message().contains("(" + reference.errorReason() + " at offset " + reference.errorPosition() + ")"),
                failure::message);
        assertArrayEquals(prefix, out.toByteArray());
        assertEquals(referenceCounts(before), result.counts());
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 101, 150})
    void aValidLineLongerThanTheMaximumStopsTheRelayOnTheFastPathToo(int length) {
        String ok = "[\"" + "a".repeat(96) + "\"]"; // 100 bytes
        String line = "[\"" + "a".repeat(length - 4) + "\"]";
        byte[] input = lines(ok, line, ok);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RelayResult result = new Relay(100).relay(chunked(input, Relay.READ_BUFFER_BYTES), out);
        if (length <= 100) {
            assertTrue(result.succeeded());
            assertArrayEquals(input, out.toByteArray());
        } else {
            assertEquals(RelayFailure.Kind.LINE_TOO_LONG, result.failure().orElseThrow().kind());
            assertEquals(2, result.failure().orElseThrow().lineNumber());
            assertArrayEquals(lines(ok), out.toByteArray());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
