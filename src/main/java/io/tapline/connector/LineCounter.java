package io.tapline.connector;

/** Where a validated line is counted: the relay's {@link LiveCounts}, or a {@link LiveCounts.Tally} of part of a chunk. */
interface LineCounter {

    /** Counts one message of {@code bytes} bytes (terminator included). */
    void count(MessageType type, String stream, int bytes);

    /** Counts one blank line of {@code bytes} bytes (terminator included). */
    void countBlank(int bytes);
}
