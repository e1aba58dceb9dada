package io.tapline.connector;

/**
 * Validates the second part of a read chunk on a thread of its own while the relay validates the
 * first: {@link #start} hands a region over, {@link #await} waits for the result. Its counts go to
 * a {@link LiveCounts.Tally}, which the relay adds to its counters only once the lines before the
 * region are known to be valid; so what is counted and written stays in line order.
 *
 * <p>One region at a time; the buffer must not change between {@link #start} and {@link #await}.
 * The hand-over and the result pass through this object's monitor, which orders the buffer's
 * contents before the scan and the scan's results before {@link #await} returns.
 */
final class ChunkValidator implements Runnable {

    private final ChunkScan scan;
    private final LiveCounts.Tally tally = new LiveCounts.Tally();
    private final Thread thread;
    private byte[] buffer;
    private int from;
    private int to;
    private boolean pending;
    private boolean done = true;
    private boolean stopped;
    private RuntimeException error;
    private boolean interrupted;

    /** A validator for lines up to {@code maxLineLength} bytes; its thread, named {@code name}, starts at once. */
    ChunkValidator(int maxLineLength, String name) {
        scan = new ChunkScan(maxLineLength);
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts validating {@code b[from, to)} (see {@link ChunkScan} for what must follow it). */
    synchronized void start(byte[] b, int from, int to) {
        this.buffer = b;
        this.from = from;
        this.to = to;
        done = false;
        pending = true;
        notifyAll();
    }

    /**
     * Waits for the region handed over by {@link #start} (returns at once when none is pending).
     *
     * @return the finished scan (its counts in {@link #tally()})
     * @throws RuntimeException what the scan threw
     */
    synchronized ChunkScan await() {
        while (!done) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        buffer = null;
        RuntimeException failure = error;
        error = null;
        if (failure != null) {
            throw failure;
        }
        return scan;
    }

    /** The counts of the last region's accepted lines. */
    LiveCounts.Tally tally() {
        return tally;
    }

    /** Ends the thread (after the pending region, if any) and restores the caller's interrupt status. */
    void stop() {
        await();
        synchronized (this) {
            stopped = true;
            notifyAll();
        }
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
    }

    @Override
    public void run() {
        for (;;) {
            byte[] b;
            int start;
            int end;
            synchronized (this) {
                while (!pending && !stopped) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // Only stop() ends this thread.
                    }
                }
                if (!pending) {
                    return;
                }
                pending = false;
                b = buffer;
                start = from;
                end = to;
            }
            RuntimeException failure = null;
            try {
                tally.clear();
                scan.scan(b, start, end, tally);
            } catch (RuntimeException e) {
                failure = e;
            }
            synchronized (this) {
                error = failure;
                done = true;
                notifyAll();
            }
        }
    }
}
