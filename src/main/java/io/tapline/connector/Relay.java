package io.tapline.connector;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Forwards a tap's stdout to a target's stdin line by line, byte for byte, validating each line as
 * JSON and counting messages per stream (spec §4.3).
 *
 * <p>Lines are separated by {@code \n}; the bytes written are exactly the bytes read, line
 * terminators included, and a final line without {@code \n} is forwarded as it is. Blank lines
 * (empty or whitespace only) are forwarded and otherwise ignored. The relay stops at the first line
 * that is not valid JSON ({@link SingerLineScanner}) or is longer than the maximum line length;
 * that line is not forwarded, the lines before it are. It also stops when reading the tap fails or
 * when the target closes its input; see {@link RelayFailure.Kind}.
 *
 * <p>Validation: each line is checked where it lies in the read buffer by {@link FastLineScanner},
 * which finds the line's end in the same pass; lines it does not handle (rare shapes, and every
 * invalid line) are decided by {@link SingerLineScanner}, so what is accepted, and the reason and
 * offset given for a rejection, are exactly {@link SingerLineScanner}'s.
 *
 * <p>Threads and memory: the calling thread reads, validates and writes. A read chunk with at least
 * {@value #SPLIT_BYTES} bytes of complete lines is validated in two parts at once, the second on a
 * validator thread of the relay's own ({@link ChunkValidator}); its lines are counted and written
 * only after every line before them was accepted, so nothing after an invalid line is written and
 * the counts are those of the lines written. One read buffer of {@value #READ_BUFFER_BYTES} bytes
 * (plus a few bytes of room for the fast path), filled with what the tap has written so far (a read
 * never waits for more), plus a line buffer used only for a line that spans two reads; it grows
 * as needed up to the maximum line length and is shrunk back to {@value #LINE_BUFFER_INITIAL_BYTES}
 * bytes after a line longer than {@value #LINE_BUFFER_RETAINED_BYTES} bytes. Complete lines are
 * written straight from the read buffer, one {@code write} call per run of lines, and the output
 * is flushed after each read chunk, so a slow tap's lines reach the target without delay.
 *
 * <p>One instance relays one stream: {@link #relay} may be called once. {@link #counts()} may be
 * called from any thread at any time (see {@link LiveCounts} for the exact guarantee: each counter
 * is read whole and never goes backwards; counters are not mutually consistent while the relay
 * runs, and exact once it has returned).
 */
public final class Relay {

    /** The default maximum line length, in bytes, line terminator excluded: 128 MiB. */
    public static final int DEFAULT_MAX_LINE_LENGTH = 128 * 1024 * 1024;

    /** The largest accepted maximum line length (a Java array limit). */
    public static final int MAX_LINE_LENGTH_LIMIT = Integer.MAX_VALUE - 16;

    /** Size of a read from the tap, in bytes. */
    public static final int READ_BUFFER_BYTES = 1024 * 1024;

    /** The most bytes of an invalid line quoted in a failure excerpt. */
    public static final int EXCERPT_BYTES = 120;

    /** Chunks with at least this many bytes of complete lines are validated in two parts, on two threads. */
    static final int SPLIT_BYTES = 16 * 1024;

    static final int LINE_BUFFER_INITIAL_BYTES = 64 * 1024;
    static final int LINE_BUFFER_RETAINED_BYTES = 1024 * 1024;

    private final int maxLineLength;
    private final ChunkScan own;
    private final SingerLineScanner scanner;
    private ChunkValidator validator;
    private final LiveCounts counts = new LiveCounts();
    private final AtomicBoolean used = new AtomicBoolean();

    /** A line spanning reads, content and (once seen) its terminator; valid bytes: [0, lineLength). */
    private byte[] lineBuffer;
    private int lineLength;
    /** Lines taken from the tap so far (forwarded or about to be, blank ones included). */
    private long lines;

    /** A relay with the {@link #DEFAULT_MAX_LINE_LENGTH default maximum line length}. */
    public Relay() {
        this(DEFAULT_MAX_LINE_LENGTH);
    }

    /**
     * A relay that rejects lines longer than {@code maxLineLength} bytes (terminator excluded).
     *
     * @throws IllegalArgumentException unless {@code 1 <= maxLineLength <= MAX_LINE_LENGTH_LIMIT}
     */
    public Relay(int maxLineLength) {
        if (maxLineLength < 1 || maxLineLength > MAX_LINE_LENGTH_LIMIT) {
            throw new IllegalArgumentException("maxLineLength must be between 1 and " + MAX_LINE_LENGTH_LIMIT
                    + ", got " + maxLineLength);
        }
        this.maxLineLength = maxLineLength;
        this.own = new ChunkScan(maxLineLength);
        this.scanner = own.reference();
    }

    /** The maximum line length in bytes, terminator excluded. */
    public int maxLineLength() {
        return maxLineLength;
    }

    /** Current capacity of the line buffer in bytes (0 when none is held); for tests. */
    int lineBufferCapacity() {
        byte[] buffer = lineBuffer;
        return buffer == null ? 0 : buffer.length;
    }

    /**
     * A snapshot of the counts so far; callable from any thread, never blocks the relay. Lines that
     * caused a failure are not counted. On {@link RelayFailure.Kind#TARGET_CLOSED} the lines of the
     * last read chunk are counted although the target may not have received them.
     */
    public StreamCounts counts() {
        return counts.snapshot();
    }

    /**
     * Forwards {@code tapStdout} to {@code targetStdin} until the end of {@code tapStdout} or the
     * first failure, on the calling thread (and a validator thread, started at the first read chunk
     * of {@value #SPLIT_BYTES} bytes or more, that ends before this returns).
     * Neither stream is closed (closing the target's stdin,
     * which tells it the input is complete, is the caller's job); the output is flushed. Blocks
     * while the tap produces nothing; to stop it, close or end the tap's output (e.g. terminate
     * the tap process).
     *
     * @param tapStdout   the tap's stdout
     * @param targetStdin the target's stdin
     * @return the counts, and the failure if the relay stopped early; never throws for I/O errors
     * @throws IllegalStateException if this relay was already used
     */
    public RelayResult relay(InputStream tapStdout, OutputStream targetStdin) {
        Objects.requireNonNull(tapStdout, "tapStdout");
        Objects.requireNonNull(targetStdin, "targetStdin");
        if (!used.compareAndSet(false, true)) {
            throw new IllegalStateException("A Relay forwards one stream; create a new one");
        }
        RelayFailure failure = null;
        try {
            forward(tapStdout, targetStdin);
        } catch (Stop stop) {
            failure = stop.failure;
            if (failure.kind() != RelayFailure.Kind.TARGET_CLOSED) {
                // Deliver the valid lines that preceded the failure.
                flushQuietly(targetStdin);
            }
        } finally {
            lineBuffer = null;
            lineLength = 0;
            if (validator != null) {
                validator.stop();
                validator = null;
            }
        }
        return new RelayResult(counts.snapshot(), failure);
    }

    private void forward(InputStream in, OutputStream out) throws Stop {
        // Room for the fast path's sentinel and word reads after the bytes read.
        final byte[] buffer = new byte[READ_BUFFER_BYTES + 1 + FastLineScanner.SLACK];
        for (;;) {
            int n = read(in, buffer, READ_BUFFER_BYTES);
            if (n < 0) {
                break;
            }
            int position = 0;
            boolean wrote = false;
            if (lineLength > 0) {
                int newline = Swar.indexOfNewline(buffer, 0, n);
                if (newline < 0) {
                    append(buffer, 0, n);
                    continue;
                }
                append(buffer, 0, newline);
                lineBuffer[lineLength++] = '\n';
                if (!accept(lineBuffer, 0, lineLength - 1, lineLength)) {
                    throw invalidLine(lineBuffer, 0, lineLength - 1);
                }
                write(out, lineBuffer, 0, lineLength);
                wrote = true;
                releaseLine();
                position = newline + 1;
            }
            int runStart = position;
            buffer[n] = '\n'; // the fast path's sentinel
            int split = n - position >= SPLIT_BYTES ? Swar.indexOfNewline(buffer, position + (n - position) / 2, n) + 1 : 0;
            ChunkScan last = own;
            if (split > 0) {
                // The second part on the validator's thread, the first (ending with '\n') on this one.
                if (validator == null) {
                    // Started at the first chunk big enough: a slow tap's run never needs it.
                    validator = new ChunkValidator(maxLineLength, Thread.currentThread().getName() + "-validator");
                }
                validator.start(buffer, split, n);
            }
            try {
                own.scan(buffer, position, split > 0 ? split : n, counts);
            } finally {
                if (split > 0) {
                    last = validator.await();
                }
            }
            lines += own.lines();
            position = own.stop();
            if (own.result() != ChunkScan.END) {
                last = own;
            } else if (last != own) {
                // The first part is valid throughout: the second part's lines follow it.
                counts.add(validator.tally());
                lines += last.lines();
                position = last.stop();
            }
            if (position > runStart) {
                write(out, buffer, runStart, position - runStart);
                wrote = true;
            }
            if (last.result() == ChunkScan.TOO_LONG) {
                throw tooLong();
            }
            if (last.result() == ChunkScan.INVALID) {
                throw invalidLine(buffer, position, last.failedLength(), last.errorReason(), last.errorPosition());
            }
            if (wrote) {
                flush(out);
            }
            if (position < n) {
                append(buffer, position, n - position);
            }
        }
        if (lineLength > 0) {
            if (!accept(lineBuffer, 0, lineLength, lineLength)) {
                throw invalidLine(lineBuffer, 0, lineLength);
            }
            write(out, lineBuffer, 0, lineLength);
            releaseLine();
        }
        flush(out);
    }

    /**
     * Validates and counts one line whose content is {@code b[offset, offset + length)} and whose
     * wire size is {@code bytes}; false when it is not valid JSON.
     */
    private boolean accept(byte[] b, int offset, int length, int bytes) {
        SingerLineScanner.Outcome outcome = scanner.scan(b, offset, length);
        if (outcome == SingerLineScanner.Outcome.INVALID) {
            return false;
        }
        lines++;
        if (outcome == SingerLineScanner.Outcome.BLANK) {
            counts.countBlank(bytes);
        } else {
            counts.count(scanner.messageType(), scanner.stream(), bytes);
        }
        return true;
    }

    /** Appends line content (no terminator) to the line buffer, enforcing the maximum. */
    private void append(byte[] b, int offset, int length) throws Stop {
        long needed = (long) lineLength + length;
        if (needed > maxLineLength) {
            throw tooLong();
        }
        // Room for the terminator too, which is appended without a check.
        ensureCapacity((int) needed + 1);
        System.arraycopy(b, offset, lineBuffer, lineLength, length);
        lineLength = (int) needed;
    }

    private void ensureCapacity(int needed) {
        if (lineBuffer == null) {
            lineBuffer = new byte[Math.max(needed, Math.min(LINE_BUFFER_INITIAL_BYTES, maxLineLength + 1))];
        } else if (needed > lineBuffer.length) {
            long doubled = Math.min(2L * lineBuffer.length, (long) maxLineLength + 1);
            byte[] grown = new byte[(int) Math.max(needed, doubled)];
            System.arraycopy(lineBuffer, 0, grown, 0, lineLength);
            lineBuffer = grown;
        }
    }

    /** Forgets the buffered line; drops the buffer if a huge line made it big. */
    private void releaseLine() {
        lineLength = 0;
        if (lineBuffer.length > LINE_BUFFER_RETAINED_BYTES) {
            lineBuffer = null;
        }
    }

    private int read(InputStream in, byte[] buffer, int length) throws Stop {
        try {
            return in.read(buffer, 0, length);
        } catch (IOException e) {
            throw new Stop(new RelayFailure(RelayFailure.Kind.TAP_READ_FAILED, lines + 1,
                    "reading the tap's output failed at line " + (lines + 1) + ": " + e.getMessage(), null, e));
        }
    }

    private void write(OutputStream out, byte[] b, int offset, int length) throws Stop {
        if (length == 0) {
            return;
        }
        try {
            out.write(b, offset, length);
        } catch (IOException e) {
            throw targetClosed(e);
        }
    }

    private void flush(OutputStream out) throws Stop {
        try {
            out.flush();
        } catch (IOException e) {
            throw targetClosed(e);
        }
    }

    private static void flushQuietly(OutputStream out) {
        try {
            out.flush();
        } catch (IOException ignored) {
            // The target is gone as well; the original failure is what matters.
        }
    }

    private Stop targetClosed(IOException e) {
        return new Stop(new RelayFailure(RelayFailure.Kind.TARGET_CLOSED, lines,
                "target closed its input (" + e.getMessage() + ") after " + lines + " lines", null, e));
    }

    private Stop tooLong() {
        long number = lines + 1;
        return new Stop(new RelayFailure(RelayFailure.Kind.LINE_TOO_LONG, number,
                "line " + number + " is longer than the maximum of " + maxLineLength + " bytes", null, null));
    }

    private Stop invalidLine(byte[] b, int offset, int length) {
        return invalidLine(b, offset, length, scanner.errorReason(), scanner.errorPosition());
    }

    private Stop invalidLine(byte[] b, int offset, int length, String reason, int position) {
        long number = lines + 1;
        String excerpt = excerpt(b, offset, length);
        String message = "line " + number + " is not valid JSON (" + reason + " at offset " + position + "): " + excerpt;
        return new Stop(new RelayFailure(RelayFailure.Kind.INVALID_LINE, number, message, excerpt, null));
    }

    /**
     * The first {@value #EXCERPT_BYTES} bytes of a line as printable text: printable ASCII kept,
     * tab and CR as {@code \t} and {@code \r}, any other byte as {@code \xNN}; {@code ...} appended
     * when the line is longer.
     */
    static String excerpt(byte[] b, int offset, int length) {
        int n = Math.min(length, EXCERPT_BYTES);
        StringBuilder text = new StringBuilder(n + 16);
        for (int i = offset; i < offset + n; i++) {
            int c = b[i] & 0xFF;
            if (c >= 0x20 && c < 0x7F) {
                text.append((char) c);
            } else if (c == '\t') {
                text.append("\\t");
            } else if (c == '\r') {
                text.append("\\r");
            } else {
                text.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
            }
        }
        if (length > n) {
            text.append("...");
        }
        return text.toString();
    }

    /** Ends the relay loop with a failure; no stack trace (it is control flow, not a bug). */
    private static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient RelayFailure failure;

        Stop(RelayFailure failure) {
            super(failure.message(), null, false, false);
            this.failure = failure;
        }
    }
}
