package io.tapline.connector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Drains a process's stderr on its own thread and hands it to a sink line by line, each line
 * prefixed (e.g. {@code "extractor | "}). Lines are split on {@code \n}; a trailing {@code \r} is
 * dropped; bytes that are not valid UTF-8 become U+FFFD. A line longer than
 * {@value #MAX_LINE_BYTES} bytes is cut there (at a character boundary) and ends with a marker
 * giving its full length; the rest of it is read and discarded, so the process never blocks on a
 * full pipe. A final line without terminator is delivered at end of stream.
 *
 * <p>The sink is called on the pump's thread only. An exception thrown by the sink is reported
 * once through {@link System.Logger} and does not stop the draining.
 */
final class StderrPump implements Runnable {

    /** The longest line kept, in bytes. */
    static final int MAX_LINE_BYTES = 64 * 1024;

    private static final System.Logger LOG = System.getLogger(StderrPump.class.getName());

    private final InputStream stderr;
    private final String prefix;
    private final Consumer<String> sink;
    private final CountDownLatch finished = new CountDownLatch(1);

    private final byte[] line = new byte[MAX_LINE_BYTES];
    private int kept;
    private long lineBytes;
    private boolean sinkFailed;

    StderrPump(InputStream stderr, String prefix, Consumer<String> sink) {
        this.stderr = stderr;
        this.prefix = prefix;
        this.sink = sink;
    }

    @Override
    public void run() {
        byte[] buffer = new byte[8192];
        try (stderr) {
            int n;
            while ((n = stderr.read(buffer)) >= 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        append(buffer, start, i - start);
                        emit();
                        start = i + 1;
                    }
                }
                append(buffer, start, n - start);
            }
        } catch (IOException e) {
            // The pipe was closed under us (the process was destroyed): deliver what we have.
        } finally {
            if (lineBytes > 0) {
                emit();
            }
            finished.countDown();
        }
    }

    /** Waits until stderr reached its end (every writer closed it) and every line was delivered. */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return finished.await(timeout, unit);
    }

    private void append(byte[] b, int offset, int length) {
        int room = MAX_LINE_BYTES - kept;
        int copied = Math.min(room, length);
        System.arraycopy(b, offset, line, kept, copied);
        kept += copied;
        lineBytes += length;
    }

    /** {@code end}, or less so that {@code b[0, end)} does not end inside a UTF-8 sequence. */
    static int utf8Boundary(byte[] b, int end) {
        int i = end;
        while (i > 0 && end - i < 3 && (b[i - 1] & 0xC0) == 0x80) {
            i--;
        }
        if (i == 0) {
            return end;
        }
        int lead = b[i - 1] & 0xFF;
        int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        return lead >= 0xC0 && end - (i - 1) < length ? i - 1 : end;
    }

    private void emit() {
        String text;
        if (lineBytes > MAX_LINE_BYTES) {
            int end = utf8Boundary(line, kept);
            text = new String(line, 0, end, StandardCharsets.UTF_8)
                    + " [line cut: " + lineBytes + " bytes, first " + end + " shown]";
        } else {
            int end = kept > 0 && line[kept - 1] == '\r' ? kept - 1 : kept;
            text = new String(line, 0, end, StandardCharsets.UTF_8);
        }
        kept = 0;
        lineBytes = 0;
        try {
            sink.accept(prefix + text);
        } catch (RuntimeException e) {
            if (!sinkFailed) {
                sinkFailed = true;
                LOG.log(System.Logger.Level.WARNING, "stderr sink failed for '" + prefix + "'; further failures are ignored", e);
            }
        }
    }
}
