package io.tapline.connector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.tapline.connector.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RelayTest {

    /** An input stream that returns at most {@code chunk} bytes per read. */
    private static InputStream chunked(byte[] data, int chunk) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    private record Run(RelayResult result, byte[] output) {
        RelayFailure failure() {
            return result.failure().orElseThrow(() -> new AssertionError("expected a failure"));
        }
    }

    private static Run relay(Relay relay, byte[] input, int chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RelayResult result = relay.relay(chunked(input, chunk), out);
        return new Run(result, out.toByteArray());
    }

    private static Run relay(String input, int chunk) {
        return relay(new Relay(), utf8(input), chunk);
    }

    // ---- Forwarding and counting -------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void forwardsRealTapOutputUnchangedAndCountsPerStream(int chunk) {
        byte[] input = Fixtures.singer("sdk-tap-sqlite.run2-with-state.tap-stdout.jsonl");
        Run run = relay(new Relay(), input, chunk);

        assertTrue(run.result().succeeded());
        assertArrayEquals(input, run.output());
        StreamCounts counts = run.result().counts();
        assertEquals(List.of("main-orders"), List.copyOf(counts.streams().keySet()));
        assertEquals(new MessageCounts(27, 1, 0, 0, 0, 0, 4911), counts.stream("main-orders"));
        assertEquals(new MessageCounts(0, 0, 4, 0, 0, 0, 638), counts.withoutStream());
        assertEquals(32, counts.lines());
        assertEquals(input.length, counts.bytes());
        assertEquals(0, counts.blankLines());
        assertEquals(32, counts.total().messages());
    }

    @Test
    void countsEveryRecordedTapOutput() {
        record Expected(String fixture, String stream, long records, long streamBytes, long stateBytes) {
        }
        List<Expected> expectations = List.of(
                new Expected("classic-tap-csv.tap-stdout.jsonl", "people", 3, 552, 31),
                new Expected("sdk-tap-csv.tap-stdout.jsonl", "people", 3, 744, 53),
                new Expected("sdk-tap-sqlite.run1.tap-stdout.jsonl", "main-orders", 3, 870, 134),
                new Expected("spreadsheets-anywhere.run1.tap-stdout.jsonl", "orders", 2, 923, 88));
        for (Expected e : expectations) {
            byte[] input = Fixtures.singer(e.fixture());
            Run run = relay(new Relay(), input, Relay.READ_BUFFER_BYTES);
            assertTrue(run.result().succeeded(), e.fixture());
            assertArrayEquals(input, run.output(), e.fixture());
            StreamCounts counts = run.result().counts();
            assertEquals(new MessageCounts(e.records(), 1, 0, 0, 0, 0, e.streamBytes()), counts.stream(e.stream()), e.fixture());
            assertEquals(new MessageCounts(0, 0, 1, 0, 0, 0, e.stateBytes()), counts.withoutStream(), e.fixture());
            assertEquals(1, counts.streams().size());
        }
    }

    @Test
    void countsAllMessageTypesPerStreamInFirstSeenOrder() {
        String input = """
                {"type":"SCHEMA","stream":"b","schema":{},"key_properties":[]}
                {"type":"SCHEMA","stream":"a","schema":{},"key_properties":[]}
                {"type":"ACTIVATE_VERSION","stream":"a","version":1}
                {"type":"RECORD","stream":"a","record":{"type":"RECORD","stream":"b"}}
                {"type":"RECORD","stream":"b","record":{}}
                {"type":"BATCH","stream":"b","encoding":{"format":"jsonl"},"manifest":[]}
                {"type":"STATE","value":{"bookmarks":{"a":{}}}}
                {"type":"METRIC","stream":"a"}
                {"type":"LOG","message":"hi"}
                [1,2]
                "just a string"
                {"bookmarks":{}}
                """;
        Run run = relay(input, Relay.READ_BUFFER_BYTES);
        assertTrue(run.result().succeeded());
        StreamCounts counts = run.result().counts();
        assertEquals(List.of("b", "a"), List.copyOf(counts.streams().keySet()));
        MessageCounts a = counts.stream("a");
        assertEquals(1, a.records());
        assertEquals(1, a.schemas());
        assertEquals(1, a.activateVersions());
        assertEquals(1, a.others());
        assertEquals(0, a.batches());
        MessageCounts b = counts.stream("b");
        assertEquals(1, b.records());
        assertEquals(1, b.schemas());
        assertEquals(1, b.batches());
        MessageCounts none = counts.withoutStream();
        assertEquals(1, none.states());
        assertEquals(4, none.others(), "LOG, an array, a string, a bare state object");
        assertEquals(12, counts.lines());
        assertEquals(utf8(input).length, counts.bytes());
        assertEquals(12, counts.total().messages());
        assertEquals(2, counts.total().records());
        assertEquals(MessageCounts.ZERO, counts.stream("missing"));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void forwardsAFinalLineWithoutNewlineAsItIs(int chunk) {
        String input = "{\"type\":\"RECORD\",\"stream\":\"s\"}\n{\"type\":\"STATE\",\"value\":{}}";
        Run run = relay(input, chunk);
        assertTrue(run.result().succeeded());
        assertArrayEquals(utf8(input), run.output());
        assertEquals(2, run.result().counts().lines());
        assertEquals(new MessageCounts(0, 0, 1, 0, 0, 0, 27), run.result().counts().withoutStream());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void forwardsBlankLinesAndCrLfUnchanged(int chunk) {
        String input = "\n  \n{\"type\":\"RECORD\",\"stream\":\"s\"}\r\n\t\r\n\n{\"type\":\"RECORD\",\"stream\":\"s\"}\n \t";
        Run run = relay(input, chunk);
        assertTrue(run.result().succeeded(), () -> run.result().toString());
        assertArrayEquals(utf8(input), run.output());
        StreamCounts counts = run.result().counts();
        assertEquals(5, counts.blankLines());
        assertEquals(1 + 3 + 3 + 1 + 2, counts.blankBytes());
        assertEquals(2, counts.stream("s").records());
        assertEquals(7, counts.lines());
        assertEquals(utf8(input).length, counts.bytes());
        assertEquals(2, counts.total().messages(), "blank lines are not counted as messages");
    }

    @Test
    void emptyInputIsASuccessWithNothingForwarded() {
        Run run = relay("", Relay.READ_BUFFER_BYTES);
        assertTrue(run.result().succeeded());
        assertEquals(0, run.output().length);
        assertEquals(StreamCounts.EMPTY, run.result().counts());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void forwardsNonUtf8BytesUnchanged(int chunk) {
        byte[] input = {'{', '"', 's', 't', 'r', 'e', 'a', 'm', '"', ':', '"', (byte) 0xE9, '"', '}', '\n',
                '[', '"', (byte) 0xFF, (byte) 0xC3, '"', ']', '\n'};
        Run run = relay(new Relay(), input, chunk);
        assertTrue(run.result().succeeded());
        assertArrayEquals(input, run.output());
        assertEquals(1, run.result().counts().stream("\uFFFD").others());
    }

    @Test
    void writesWholeRunsOfLinesInOneCallAndFlushesEveryChunk() {
        StringBuilder input = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            input.append("{\"type\":\"RECORD\",\"stream\":\"s\",\"record\":{\"i\":").append(i).append("}}\n");
        }
        List<Integer> writes = new ArrayList<>();
        int[] flushes = {0};
        OutputStream out = new OutputStream() {
            @Override
            public void write(int b) {
                throw new AssertionError("single-byte writes are not expected");
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writes.add(len);
            }

            @Override
            public void flush() {
                flushes[0]++;
            }
        };
        RelayResult result = new Relay().relay(new ByteArrayInputStream(utf8(input.toString())), out);
        assertTrue(result.succeeded());
        assertEquals(List.of(utf8(input.toString()).length), writes);
        assertTrue(flushes[0] >= 1);
    }

    // ---- Invalid lines -------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void stopsAtTheFirstInvalidLineAfterForwardingTheLinesBeforeIt(int chunk) {
        String good = "{\"type\":\"RECORD\",\"stream\":\"s\"}\n\n";
        String input = good + "{\"type\":\"RECORD\",\"stream\":\"s\"\n{\"type\":\"RECORD\",\"stream\":\"s\"}\n";
        Run run = relay(input, chunk);

        RelayFailure failure = run.failure();
        assertEquals(RelayFailure.Kind.INVALID_LINE, failure.kind());
        assertEquals(3, failure.lineNumber());
        assertEquals("{\"type\":\"RECORD\",\"stream\":\"s\"", failure.excerpt());
        assertEquals("line 3 is not valid JSON (unexpected end of line at offset 29): {\"type\":\"RECORD\",\"stream\":\"s\"",
                failure.message());
        assertNull(failure.cause());
        assertArrayEquals(utf8(good), run.output());
        assertEquals(1, run.result().counts().stream("s").records());
        assertEquals(2, run.result().counts().lines());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void anInvalidFinalLineWithoutNewlineIsAFailure(int chunk) {
        Run run = relay("{}\n{\"type\":", chunk);
        assertEquals(RelayFailure.Kind.INVALID_LINE, run.failure().kind());
        assertEquals(2, run.failure().lineNumber());
        assertArrayEquals(utf8("{}\n"), run.output());
    }

    @Test
    void invalidLinesAtTheStartAndGarbageFromLoggingTaps() {
        Run run = relay("2026-11-29 15:09:22,655 | INFO | tap-csv | Beginning sync\n{}\n", Relay.READ_BUFFER_BYTES);
        assertEquals(1, run.failure().lineNumber());
        assertEquals("2026-11-29 15:09:22,655 | INFO | tap-csv | Beginning sync", run.failure().excerpt());
        assertTrue(run.failure().message().startsWith("line 1 is not valid JSON (unexpected characters after the JSON value at offset 4)"),
                run.failure().message());
        assertEquals(0, run.output().length);
    }

    @Test
    void excerptsAreShortAndPrintable() {
        byte[] line = new byte[300];
        Arrays.fill(line, (byte) 'x');
        line[0] = '{';
        line[1] = 0;
        line[2] = '\t';
        line[3] = (byte) 0xC3;
        line[4] = (byte) 0xA9;
        line[5] = '\r';
        line[6] = 0x7F;
        line[7] = '\\';
        byte[] input = Arrays.copyOf(line, 301);
        input[300] = '\n';
        Run run = relay(new Relay(), input, Relay.READ_BUFFER_BYTES);
        String excerpt = run.failure().excerpt();
        assertEquals("{\\x00\\t\\xc3\\xa9\\r\\x7f\\" + "x".repeat(Relay.EXCERPT_BYTES - 8) + "...", excerpt);
        assertTrue(excerpt.chars().allMatch(c -> c >= 0x20 && c < 0x7F));
        assertEquals("{\"a\":1}", Relay.excerpt(utf8("{\"a\":1}"), 0, 7));
    }

    // ---- Line length -----------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, Relay.READ_BUFFER_BYTES})
    void linesUpToTheMaximumPassAndLongerOnesStopTheRelay(int chunk) {
        String atMax = "[\"" + "a".repeat(96) + "\"]"; // 100 bytes
        String tooLong = "[\"" + "a".repeat(97) + "\"]"; // 101 bytes
        Run ok = relay(new Relay(100), utf8(atMax + "\n" + atMax), chunk);
        assertTrue(ok.result().succeeded(), () -> ok.result().toString());

        Run run = relay(new Relay(100), utf8(atMax + "\n" + tooLong + "\n" + atMax + "\n"), chunk);
        RelayFailure failure = run.failure();
        assertEquals(RelayFailure.Kind.LINE_TOO_LONG, failure.kind());
        assertEquals(2, failure.lineNumber());
        assertEquals("line 2 is longer than the maximum of 100 bytes", failure.message());
        assertArrayEquals(utf8(atMax + "\n"), run.output());

        Run last = relay(new Relay(100), utf8(atMax + "\n" + tooLong), chunk);
        assertEquals(RelayFailure.Kind.LINE_TOO_LONG, last.failure().kind());
        assertEquals(2, last.failure().lineNumber());
    }

    @Test
    void aTooLongLineIsDetectedBeforeItIsReadCompletely() {
        int max = 1000;
        int[] served = {0};
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (served[0] > 100 * Relay.READ_BUFFER_BYTES) {
                    throw new AssertionError("the relay kept reading a line that is already too long");
                }
                int n = Math.min(len, 4096);
                Arrays.fill(b, off, off + n, (byte) 'x');
                served[0] += n;
                return n;
            }
        };
        RelayResult result = new Relay(max).relay(endless, OutputStream.nullOutputStream());
        assertEquals(RelayFailure.Kind.LINE_TOO_LONG, result.failure().orElseThrow().kind());
        assertEquals(1, result.failure().orElseThrow().lineNumber());
        assertTrue(served[0] <= max + Relay.READ_BUFFER_BYTES);
    }

    @Test
    void theLineBufferShrinksBackAfterAHugeLine() {
        byte[] huge = utf8("[\"" + "h".repeat(3 * 1024 * 1024) + "\"]\n");
        byte[] small = utf8("{\"type\":\"RECORD\",\"stream\":\"after\"}\n");
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        input.writeBytes(huge);
        for (int i = 0; i < 3; i++) {
            input.writeBytes(small);
        }
        Relay relay = new Relay();
        List<Integer> capacities = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OutputStream sampling = new OutputStream() {
            @Override
            public void write(int b) {
                throw new AssertionError("single-byte writes are not expected");
            }

            @Override
            public void write(byte[] b, int off, int len) {
                out.write(b, off, len);
                capacities.add(relay.lineBufferCapacity());
            }
        };
        RelayResult result = relay.relay(chunked(input.toByteArray(), 1000), sampling);
        assertTrue(result.succeeded());
        assertArrayEquals(input.toByteArray(), out.toByteArray());
        assertTrue(capacities.get(0) >= huge.length - 1, "grew for the huge line: " + capacities.get(0));
        for (int capacity : capacities.subList(1, capacities.size())) {
            assertTrue(capacity <= Relay.LINE_BUFFER_INITIAL_BYTES, "shrunk back: " + capacity);
        }
        assertEquals(0, relay.lineBufferCapacity(), "released at the end");
    }

    // ---- Failures of either side -----------------------------------------------------------------

    @Test
    void aTargetThatClosedItsInputIsReportedAsSuch() {
        for (String message : List.of("Broken pipe", "Stream closed")) {
            OutputStream closed = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    throw new IOException(message);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    throw new IOException(message);
                }
            };
            RelayResult result = new Relay().relay(new ByteArrayInputStream(utf8("{}\n{}\n")), closed);
            RelayFailure failure = result.failure().orElseThrow();
            assertEquals(RelayFailure.Kind.TARGET_CLOSED, failure.kind());
            assertTrue(failure.message().startsWith("target closed its input (" + message + ")"), failure.message());
            assertEquals(message, failure.cause().getMessage());
        }
    }

    @Test
    void aFailingFlushIsATargetFailureToo() {
        OutputStream out = new FilterOutputStream(OutputStream.nullOutputStream()) {
            @Override
            public void write(byte[] b, int off, int len) {
            }

            @Override
            public void flush() throws IOException {
                throw new IOException("Broken pipe");
            }
        };
        RelayResult result = new Relay().relay(new ByteArrayInputStream(utf8("{}\n")), out);
        assertEquals(RelayFailure.Kind.TARGET_CLOSED, result.failure().orElseThrow().kind());
    }

    @Test
    void aReadErrorIsATapFailure() {
        InputStream failing = new InputStream() {
            private boolean served;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (served) {
                    throw new IOException("Input/output error");
                }
                served = true;
                byte[] data = utf8("{}\n{\"a\":");
                System.arraycopy(data, 0, b, off, data.length);
                return data.length;
            }
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RelayResult result = new Relay().relay(failing, out);
        RelayFailure failure = result.failure().orElseThrow();
        assertEquals(RelayFailure.Kind.TAP_READ_FAILED, failure.kind());
        assertEquals(2, failure.lineNumber());
        assertEquals("reading the tap's output failed at line 2: Input/output error", failure.message());
        assertArrayEquals(utf8("{}\n"), out.toByteArray());
    }

    // ---- Concurrency -----------------------------------------------------------------------------

    @Test
    void linesOfASlowTapReachTheTargetAndCountsAreReadableWhileTheRelayWaits() throws Exception {
        PipedOutputStream tap = new PipedOutputStream();
        PipedInputStream tapStdout = new PipedInputStream(tap, 1 << 16);
        CountDownLatch delivered = new CountDownLatch(3);
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        OutputStream target = new OutputStream() {
            private int pendingLines;

            @Override
            public void write(int b) {
                throw new AssertionError();
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                received.write(b, off, len);
                for (int i = off; i < off + len; i++) {
                    if (b[i] == '\n') {
                        pendingLines++;
                    }
                }
            }

            @Override
            public synchronized void flush() {
                for (; pendingLines > 0; pendingLines--) {
                    delivered.countDown();
                }
            }
        };
        Relay relay = new Relay();
        CompletableFuture<RelayResult> running = CompletableFuture.supplyAsync(
                () -> relay.relay(tapStdout, target));

        String schema = "{\"type\":\"SCHEMA\",\"stream\":\"s\",\"schema\":{}}\n";
        String record = "{\"type\":\"RECORD\",\"stream\":\"s\"}\n";
        tap.write(utf8(schema + record));
        tap.flush();
        tap.write(utf8("{\"type\":\"STATE\",\"value\":{}}\n{\"type\":\"RECORD\""));
        tap.flush();
        // Three complete lines were flushed to the target while the tap is still open.
        assertTrue(delivered.await(30, TimeUnit.SECONDS));
        StreamCounts counts = relay.counts();
        assertEquals(new MessageCounts(1, 1, 0, 0, 0, 0, utf8(schema + record).length), counts.stream("s"));
        assertEquals(1, counts.withoutStream().states());
        assertFalse(running.isDone());

        tap.write(utf8(",\"stream\":\"s\"}\n"));
        tap.close();
        RelayResult result = running.get(30, TimeUnit.SECONDS);
        assertTrue(result.succeeded());
        assertEquals(2, result.counts().stream("s").records());
        assertEquals(result.counts(), relay.counts());
        assertEquals(result.counts().bytes(), received.size());
    }

    // ---- API -----------------------------------------------------------------------------------

    @Test
    void aRelayIsUsedOnce() {
        Relay relay = new Relay();
        relay.relay(InputStream.nullInputStream(), OutputStream.nullOutputStream());
        assertThrows(IllegalStateException.class,
                () -> relay.relay(InputStream.nullInputStream(), OutputStream.nullOutputStream()));
    }

    @Test
    void validatesItsArguments() {
        assertThrows(IllegalArgumentException.class, () -> new Relay(0));
        assertThrows(IllegalArgumentException.class, () -> new Relay(Integer.MAX_VALUE));
        assertEquals(Relay.DEFAULT_MAX_LINE_LENGTH, new Relay().maxLineLength());
        assertThrows(NullPointerException.class,
                () -> new Relay().relay(null, OutputStream.nullOutputStream()));
    }
}
