package io.tapline.run;

import io.tapline.common.security.PrivateFiles;
import io.tapline.common.security.SecretMasker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The log of one run: lines from every component's stderr (prefixed {@code extractor | },
 * {@code loader | } ...) and the service's own notes, each with a UTC timestamp. Every known
 * secret value is replaced by {@code ********} before a line is stored anywhere. Lines go to a
 * file (up to a size cap, after which they are counted but dropped) and to an in-memory tail
 * that is copied into the database with each heartbeat. Thread-safe.
 *
 * <p>The file only ever holds whole lines: lines are written in whole-line chunks, and when a write
 * fails (disk full, quota, I/O error) the file is cut back to the last chunk written whole, and
 * every later line goes to the tail only; {@link #writeError()} then names the error, so that the
 * run says so (never "the log reached its cap").
 */
public final class RunLog implements AutoCloseable {

    /** What a secret value reads as in logs. */
    public static final String MASK = SecretMasker.MASK;

    private static final int CHUNK = 16384;

    private final Path file;
    private final FileChannel out;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(CHUNK);
    /** Bytes of the file known to hold whole lines. */
    private long committed;
    private String writeError;
    private long unwritten;
    private final long maxBytes;
    private final int tailBytes;
    private final SecretMasker masker;
    private final Clock clock;
    private final StringBuilder tail = new StringBuilder();
    private long written;
    private long dropped;
    private long total;
    private boolean closed;

    /**
     * @param file the log file (created, appended)
     * @param maxBytes largest file size; further lines are dropped and counted
     * @param tailBytes size of the in-memory tail kept for the database
     * @param secrets values to mask in every form a connector may print them ({@link SecretMasker};
     *     empty and very short values are ignored to keep logs readable)
     */
    private volatile java.util.function.Consumer<String> echo;

    public RunLog(Path file, long maxBytes, int tailBytes, List<String> secrets, Clock clock) throws IOException {
        this.file = file;
        PrivateFiles.createDirectories(file.getParent());
        this.out = PrivateFiles.appendChannel(file);
        this.committed = out.size();
        this.maxBytes = maxBytes;
        this.tailBytes = tailBytes;
        this.masker = new SecretMasker(secrets);
        this.clock = clock;
    }

    /**
     * Also hands every line, masked and without its newline, to {@code sink} (runner mode: the
     * pod's log, beside the file and the database tail).
     */
    public void echoTo(java.util.function.Consumer<String> sink) {
        this.echo = sink;
    }

    /** Appends one line with {@code prefix} ("extractor", "loader", "service", ...), masked. */
    public synchronized void line(String prefix, String text) {
        if (closed) {
            return;
        }
        String entry = Instant.now(clock) + " " + prefix + " | " + mask(text) + "\n";
        java.util.function.Consumer<String> e = echo;
        if (e != null) {
            e.accept(entry.substring(0, entry.length() - 1));
        }
        byte[] bytes = entry.getBytes(StandardCharsets.UTF_8);
        total += bytes.length;
        tail.append(entry);
        if (tail.length() > tailBytes) {
            int cut = tail.length() - tailBytes;
            int nl = tail.indexOf("\n", cut);
            tail.delete(0, nl < 0 ? cut : nl + 1);
        }
        if (writeError != null) {
            unwritten++;
            return;
        }
        if (written + bytes.length > maxBytes) {
            dropped++;
            return;
        }
        buffer.write(bytes, 0, bytes.length);
        written += bytes.length;
        if (buffer.size() >= CHUNK) {
            writeBuffer();
        }
    }

    /** Writes the buffered whole lines; on a failure cuts the file back to whole lines and stops writing. */
    private void writeBuffer() {
        if (buffer.size() == 0 || writeError != null) {
            return;
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(buffer.toByteArray());
            while (b.hasRemaining()) {
                out.write(b);
            }
            committed += buffer.size();
        } catch (IOException e) {
            writeError = e.getMessage() == null ? e.toString() : e.getMessage();
            unwritten += buffer.toString(StandardCharsets.UTF_8).chars().filter(c -> c == '\n').count();
            try {
                out.truncate(committed);
            } catch (IOException ignored) {
                // the tail in the database still has the lines
            }
        }
        buffer.reset();
    }

    /** Why the log file could not be written (e.g. "No space left on device"), or null. */
    public synchronized String writeError() {
        return writeError;
    }

    /** Appends a line already prefixed {@code "<component> | <text>"} (as the process supervisor delivers them). */
    public void prefixed(String line) {
        int i = line.indexOf(" | ");
        if (i > 0) {
            line(line.substring(0, i), line.substring(i + 3));
        } else {
            line("process", line);
        }
    }

    /** Replaces every form of every secret value in {@code text} with {@link #MASK}. */
    public String mask(String text) {
        return masker.mask(text);
    }

    /** The in-memory tail (whole lines), for the database. */
    public synchronized String tail() {
        return tail.toString();
    }

    /** Bytes logged so far, including dropped ones; the tail ends at this offset. */
    public synchronized long totalBytes() {
        return total;
    }

    /** Lines dropped because the file reached its cap. */
    public synchronized long droppedLines() {
        return dropped;
    }

    /** Writes the buffered lines to the file. */
    public synchronized void flush() {
        writeBuffer();
    }

    public Path file() {
        return file;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        writeBuffer();
        if (dropped > 0 && writeError == null) {
            buffer.writeBytes(("... " + dropped + " line(s) dropped: the log reached its cap of " + maxBytes
                    + " bytes\n").getBytes(StandardCharsets.UTF_8));
            writeBuffer();
        }
        if (writeError != null) {
            buffer.writeBytes(("... " + unwritten + " line(s) not written: " + writeError + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            writeError = null;
            writeBuffer();
        }
        closed = true;
        try {
            out.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }
}
