package io.tapline.connector;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The relay's output side: writes the byte ranges the relay hands over, in order, to the target on
 * a thread of its own, so that reading and validating the next chunk overlaps writing the previous
 * one. The relay hands over only validated lines, so nothing is written that the relay has not
 * accepted.
 *
 * <p>Read buffers come from a pool of {@value #BUFFERS} (each of the size given at construction):
 * the relay {@link #take}s one, reads and validates into it, and hands a range of it back with
 * {@link #write}; the buffer returns to the pool once written. So at most {@value #BUFFERS}
 * buffers exist, and a target that reads slowly holds the relay back once they are all queued.
 * The output is flushed whenever the queue runs empty, so lines of a slow tap reach the target
 * without waiting for more.
 *
 * <p>Once a write or flush fails, everything queued later is dropped (its buffers still return to
 * the pool) and {@link #failure()} reports the error; the relay checks it after each chunk.
 */
final class RelayWriter implements Runnable {

    /** Read buffers in the pool. */
    static final int BUFFERS = 4;

    private record Chunk(byte[] bytes, int offset, int length, byte[] recycle, boolean end, boolean quiet) {
    }

    private final OutputStream out;
    private final BlockingQueue<byte[]> free;
    private final BlockingQueue<Chunk> queued = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile IOException failure;
    private volatile RuntimeException error;
    private boolean interrupted;

    /**
     * A writer to {@code out} with a pool of buffers of {@code bufferBytes} bytes each; its thread,
     * named {@code name}, starts at once.
     */
    RelayWriter(OutputStream out, int bufferBytes, String name) {
        this.out = out;
        this.free = new ArrayBlockingQueue<>(BUFFERS);
        for (int i = 0; i < BUFFERS; i++) {
            free.add(new byte[bufferBytes]);
        }
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** A free buffer from the pool; waits until the writer has written one. Relay thread only. */
    byte[] take() {
        for (;;) {
            try {
                return free.take();
            } catch (InterruptedException e) {
                // Like a blocking write: the wait ends when the target reads or goes away.
                interrupted = true;
            }
        }
    }

    /** Gives back a buffer that holds nothing to write. */
    void recycle(byte[] buffer) {
        free.add(buffer);
    }

    /**
     * Queues {@code bytes[offset, offset + length)} for writing; {@code recycle} (a pooled buffer,
     * or null) returns to the pool once written. The range must not change until then.
     */
    void write(byte[] bytes, int offset, int length, byte[] recycle) {
        if (length == 0) {
            if (recycle != null) {
                free.add(recycle);
            }
            return;
        }
        queued.add(new Chunk(bytes, offset, length, recycle, false, false));
    }

    /** The first write or flush error, or null. */
    IOException failure() {
        return failure;
    }

    /**
     * Writes what is queued, flushes and waits for the thread to end. A failure of that last flush
     * is ignored when {@code quiet} (the relay already failed for another reason).
     *
     * @throws RuntimeException what writing threw other than an {@link IOException}
     */
    void finish(boolean quiet) {
        queued.add(new Chunk(null, 0, 0, null, true, quiet));
        for (;;) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (error != null) {
            throw error;
        }
    }

    @Override
    public void run() {
        for (;;) {
            Chunk chunk;
            try {
                chunk = queued.take();
            } catch (InterruptedException e) {
                // Nobody interrupts this thread but the JVM on exit; keep serving the relay.
                continue;
            }
            if (chunk.end()) {
                if (failure == null && error == null) {
                    try {
                        out.flush();
                    } catch (IOException e) {
                        if (!chunk.quiet()) {
                            failure = e;
                        }
                    } catch (RuntimeException e) {
                        error = e;
                    }
                }
                return;
            }
            if (failure == null && error == null) {
                try {
                    out.write(chunk.bytes(), chunk.offset(), chunk.length());
                    if (queued.isEmpty()) {
                        out.flush();
                    }
                } catch (IOException e) {
                    failure = e;
                } catch (RuntimeException e) {
                    error = e;
                    failure = new IOException(e.toString(), e);
                }
            }
            if (chunk.recycle() != null) {
                free.add(chunk.recycle());
            }
        }
    }
}
