package io.tapline.connector;

/**
 * Observes the messages a {@link Relay} accepts. Called on the relay's thread for every valid,
 * non-blank line, after it was validated and before the relay reads further input; the line's
 * bytes reach the target no later than the end of the current read chunk. Implementations must be
 * cheap (this is the hot loop) and must not block; an exception thrown here propagates out of
 * {@link Relay#relay}.
 */
@FunctionalInterface
public interface RelayListener {

    /** A listener that does nothing. */
    RelayListener NONE = (type, stream, bytes) -> {
    };

    /**
     * One accepted message.
     *
     * @param type   its type; {@link MessageType#OTHER} for unknown or missing types and non-objects
     * @param stream its top-level {@code "stream"}, or null; repeated names are usually the same instance
     * @param bytes  the line's length on the wire, terminator included
     */
    void onLine(MessageType type, String stream, int bytes);
}
