package io.tapline.run.exec;

import io.tapline.run.RunLog;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads the loader's stdout line by line into the {@link StateCheckpointer} (meltano-state.md §3),
 * logging lines that are not valid state. Lines longer than the maximum are cut (and so invalid).
 */
final class StateLineReader {

    private final StateCheckpointer checkpointer;
    private final RunLog log;
    private final long maxLineLength;

    StateLineReader(StateCheckpointer checkpointer, RunLog log, long maxLineLength) {
        this.checkpointer = checkpointer;
        this.log = log;
        this.maxLineLength = maxLineLength;
    }

    /** Reads until the end of {@code targetStdout}. */
    void read(InputStream targetStdout) {
        byte[] buf = new byte[65536];
        byte[] line = new byte[8192];
        int len = 0;
        long lineNo = 0;
        try {
            int n;
            while ((n = targetStdout.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        lineNo++;
                        handle(line, len, lineNo);
                        len = 0;
                    } else {
                        if (len == line.length) {
                            if (line.length >= maxLineLength) {
                                continue;
                            }
                            line = Arrays.copyOf(line, (int) Math.min((long) line.length * 2, maxLineLength));
                        }
                        line[len++] = b;
                    }
                }
            }
            if (len > 0) {
                handle(line, len, lineNo + 1);
            }
        } catch (IOException e) {
            log.line("service", "reading the loader's output failed: " + e.getMessage());
        }
    }

    private void handle(byte[] line, int len, long lineNo) {
        int end = len;
        while (end > 0 && (line[end - 1] == '\r' || line[end - 1] == ' ' || line[end - 1] == '\t')) {
            end--;
        }
        if (end == 0) {
            return;
        }
        StateCheckpointer.Outcome o = checkpointer.offer(line, end);
        switch (o) {
            case INVALID -> log.line("loader", "[stdout line " + lineNo + "] Received state is invalid, incremental"
                    + " state has not been updated: " + StateCheckpointer.excerpt(line, end));
            case NOT_AN_OBJECT -> log.line("loader", "[stdout line " + lineNo + "] not a JSON object; not stored: "
                    + StateCheckpointer.excerpt(line, end));
            case EMPTY_IGNORED -> log.line("service", "the loader emitted an empty state {}; ignored to keep the"
                    + " existing bookmarks");
            case CONFLICT -> log.line("loader", "[stdout line " + lineNo + "] cannot be merged with the previous state"
                    + " lines (an object over a non-object); not stored");
            default -> {
            }
        }
    }
}
