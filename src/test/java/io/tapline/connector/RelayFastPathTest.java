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

    /** Lines of about 100 bytes, enough for several read chunks, each validated in two parts. */
    private static String[] manyLines(int count) {
        String[] lines = new String[count];
        for (int i = 0; i < count; i++) {
            lines[i] = i % 7 == 3 ? MIXED[2] // a deferred line now and then
                    : "{\"type\":\"RECORD\",\"stream\":\"s" + (i % 3) + "\",\"record\":{\"id\":" + i
                    + ",\"name\":\"customer " + i + "\",\"ok\":true,\"tags\":[\"a\",null]}}";
        }
        return lines;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 100, 250, 327, 328, 329, 400, 650, 1999, 3000, 4999})
    void anInvalidLineAnywhereInALargeChunkStopsTheRelayExactlyThere(int at) {
        String[] lines = manyLines(5000);
        String invalid = "{\"type\":\"RECORD\",\"stream\":\"s1\",\"record\":{\"id\":01}}";
        lines[at] = invalid;
        byte[] input = lines(lines);
        for (int chunk : new int[] {Relay.READ_BUFFER_BYTES, 40_000, 20_000}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            RelayResult result = new Relay().relay(chunked(input, chunk), out);

            RelayFailure failure = result.failure().orElseThrow();
            assertEquals(RelayFailure.Kind.INVALID_LINE, failure.kind());
            assertEquals(at + 1, failure.lineNumber());
            assertTrue(failure.message().startsWith("line " + (at + 1) + " is not valid JSON (" + reasonOf(invalid) + "): "),
                    failure::message);
            String[] before = Arrays.copyOf(lines, at);
            assertArrayEquals(at == 0 ? new byte[0] : lines(before), out.toByteArray());
            assertEquals(referenceCounts(before), result.counts());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 400, 4000})
    void aTooLongLineInEitherPartOfAChunkStopsTheRelayThere(int at) {
        String[] lines = manyLines(5000);
        lines[at] = "[\"" + "x".repeat(300) + "\"]";
        byte[] input = lines(lines);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RelayResult result = new Relay(200).relay(chunked(input, Relay.READ_BUFFER_BYTES), out);

        assertEquals(RelayFailure.Kind.LINE_TOO_LONG, result.failure().orElseThrow().kind());
        assertEquals(at + 1, result.failure().orElseThrow().lineNumber());
        String[] before = Arrays.copyOf(lines, at);
        assertArrayEquals(lines(before), out.toByteArray());
        assertEquals(referenceCounts(before), result.counts());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aTargetThatFailsMidwayEndsTheRelay(int writesBeforeFailure) {
        byte[] input = lines(manyLines(100_000)); // about 10 MB: many read chunks
        int[] writes = {0};
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        java.io.OutputStream target = new java.io.OutputStream() {
            @Override
            public void write(int b) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                if (++writes[0] > writesBeforeFailure) {
                    throw new java.io.IOException("Broken pipe");
                }
                received.write(b, off, len);
            }
        };
        RelayResult result = new Relay().relay(chunked(input, Relay.READ_BUFFER_BYTES), target);

        RelayFailure failure = result.failure().orElseThrow();
        assertEquals(RelayFailure.Kind.TARGET_CLOSED, failure.kind());
        assertEquals("Broken pipe", failure.cause().getMessage());
        byte[] got = received.toByteArray();
        assertArrayEquals(Arrays.copyOf(input, got.length), got, "a prefix of the input");
        assertTrue(got.length > 0 && got.length < input.length);
    }

    @org.junit.jupiter.api.Test
    void theValidatorThreadEndsWithTheRelay() throws Exception {
        byte[] input = lines(manyLines(2000));
        RelayResult[] result = new RelayResult[1];
        Thread caller = new Thread(() -> result[0] = new Relay().relay(chunked(input, Relay.READ_BUFFER_BYTES),
                java.io.OutputStream.nullOutputStream()), "relay-validator-test");
        caller.start();
        caller.join();
        assertTrue(result[0].succeeded());
        assertEquals(2000, result[0].counts().lines());
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("relay-validator-test-validator")), "validator thread still alive");
    }

    private static String reasonOf(String line) {
        SingerLineScanner reference = new SingerLineScanner();
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        reference.scan(b, 0, b.length);
        return reference.errorReason() + " at offset " + reference.errorPosition();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
