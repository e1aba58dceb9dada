package io.tapline.connector;

/**
 * Validates and counts the complete lines of one region of a read buffer: each line through
 * {@link FastLineScanner}, and through {@link SingerLineScanner} when the fast path defers it.
 * Stops at the end of the region, at a line that continues past it, at the first invalid line or at
 * the first line longer than the maximum; {@link #stop()} and {@link #result()} tell which.
 *
 * <p>The region {@code b[from, to)} must either end with {@code '\n'} or be followed by a
 * {@code '\n'} sentinel at {@code b[to]}, with {@value FastLineScanner#SLACK} readable bytes after
 * it (see {@link FastLineScanner}); bytes after the region are read but never decide anything, so
 * another thread may be reading them at the same time.
 *
 * <p>Not thread-safe: one instance per thread; the results stay valid until the next scan.
 */
final class ChunkScan {

    /** {@link #result()}: every complete line up to {@link #stop()} was accepted; what follows is a partial line or nothing. */
    static final int END = 0;
    /** {@link #result()}: the line at {@link #stop()} is not valid JSON. */
    static final int INVALID = 1;
    /** {@link #result()}: the line at {@link #stop()} is longer than the maximum. */
    static final int TOO_LONG = 2;

    private final SingerLineScanner reference = new SingerLineScanner();
    private final FastLineScanner fast = new FastLineScanner(reference);
    private final int maxLineLength;
    private int lines;
    private int stop;
    private int result;
    private int failedLength;

    /** A scan that rejects lines longer than {@code maxLineLength} bytes (terminator excluded). */
    ChunkScan(int maxLineLength) {
        this.maxLineLength = maxLineLength;
    }

    /** The reference scanner, also for lines the caller validates itself (e.g. lines spanning reads). */
    SingerLineScanner reference() {
        return reference;
    }

    /**
     * Scans the lines of {@code b[from, to)}, counting each accepted line (with its terminator) in
     * {@code counter}.
     *
     * @return {@link #stop()}
     */
    int scan(byte[] b, int from, int to, LineCounter counter) {
        int accepted = 0;
        int outcome = END;
        int position = from;
        while (position < to) {
            int end = fast.scan(b, position);
            int length;
            if (end >= 0) {
                if (end == to) {
                    break; // the sentinel: this line continues after the region
                }
                length = end - position;
                if (length > maxLineLength) {
                    outcome = TOO_LONG;
                    break;
                }
                if (fast.outcome() == SingerLineScanner.Outcome.BLANK) {
                    counter.countBlank(length + 1);
                } else {
                    counter.count(fast.messageType(), fast.stream(), length + 1);
                }
            } else {
                end = Swar.indexOfNewline(b, position, to);
                if (end < 0) {
                    break;
                }
                length = end - position;
                if (length > maxLineLength) {
                    outcome = TOO_LONG;
                    break;
                }
                SingerLineScanner.Outcome line = reference.scan(b, position, length);
                if (line == SingerLineScanner.Outcome.INVALID) {
                    outcome = INVALID;
                    failedLength = length;
                    break;
                }
                if (line == SingerLineScanner.Outcome.BLANK) {
                    counter.countBlank(length + 1);
                } else {
                    counter.count(reference.messageType(), reference.stream(), length + 1);
                }
            }
            accepted++;
            position = end + 1;
        }
        lines = accepted;
        result = outcome;
        stop = position;
        return position;
    }

    /** Lines accepted by the last scan. */
    int lines() {
        return lines;
    }

    /** Where the last scan stopped: the first byte of the line it did not accept, or the region's end. */
    int stop() {
        return stop;
    }

    /** {@link #END}, {@link #INVALID} or {@link #TOO_LONG}. */
    int result() {
        return result;
    }

    /** For {@link #INVALID}: the invalid line's length, terminator excluded. */
    int failedLength() {
        return failedLength;
    }

    /** For {@link #INVALID}: {@link SingerLineScanner#errorReason()} of the invalid line. */
    String errorReason() {
        return reference.errorReason();
    }

    /** For {@link #INVALID}: {@link SingerLineScanner#errorPosition()} of the invalid line. */
    int errorPosition() {
        return reference.errorPosition();
    }
}
