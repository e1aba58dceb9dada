package io.tapline.connector;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable snapshot of what a {@link Relay} has forwarded: message counts per stream, for the
 * messages that name no stream (Singer {@code STATE}, and anything without a string
 * {@code "stream"}), and for blank lines.
 *
 * <p>Every forwarded line is in exactly one place: a stream, {@link #withoutStream()}, or
 * {@link #blankLines()}; so {@link #lines()} and {@link #bytes()} are the totals on the wire.
 *
 * @param streams       counts per stream name, in the order the streams first appeared; unmodifiable
 * @param withoutStream counts of messages without a stream
 * @param blankLines    lines that were empty or whitespace only
 * @param blankBytes    bytes of those lines, terminators included
 */
public record StreamCounts(Map<String, MessageCounts> streams, MessageCounts withoutStream, long blankLines,
                           long blankBytes) {

    /** Nothing forwarded yet. */
    public static final StreamCounts EMPTY = new StreamCounts(Map.of(), MessageCounts.ZERO, 0, 0);

    /** Copies {@code streams} (keeping its iteration order). */
    public StreamCounts {
        Objects.requireNonNull(withoutStream, "withoutStream");
        streams = Collections.unmodifiableMap(new LinkedHashMap<>(streams));
    }

    /** Counts over all streams and the stream-less messages (blank lines excluded). */
    public MessageCounts total() {
        MessageCounts total = withoutStream;
        for (MessageCounts counts : streams.values()) {
            total = total.plus(counts);
        }
        return total;
    }

    /** Counts of one stream; {@link MessageCounts#ZERO} when it has not appeared. */
    public MessageCounts stream(String name) {
        return streams.getOrDefault(name, MessageCounts.ZERO);
    }

    /** All lines forwarded, blank ones included. */
    public long lines() {
        return total().messages() + blankLines;
    }

    /** All bytes forwarded, line terminators included. */
    public long bytes() {
        return total().bytes() + blankBytes;
    }
}
