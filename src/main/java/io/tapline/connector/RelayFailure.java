package io.tapline.connector;

import java.io.IOException;
import java.util.Objects;

/**
 * Why a {@link Relay} stopped before the end of the tap's output.
 *
 * @param kind       which side failed
 * @param lineNumber the 1-based number of the line concerned: the offending line for
 *                   {@link Kind#INVALID_LINE} and {@link Kind#LINE_TOO_LONG}, the line being read or
 *                   written for the I/O kinds
 * @param message    a one-line human-readable description, e.g.
 *                   {@code line 3 is not valid JSON (unexpected end of line at byte 17): {"type": "REC}
 * @param excerpt    for {@link Kind#INVALID_LINE}: the start of the line (at most
 *                   {@value Relay#EXCERPT_BYTES} bytes, printable ASCII kept, every other byte
 *                   written as {@code \xNN}, {@code ...} appended when cut); otherwise null
 * @param cause      the I/O exception for {@link Kind#TAP_READ_FAILED} and {@link Kind#TARGET_CLOSED}; otherwise null
 */
public record RelayFailure(Kind kind, long lineNumber, String message, String excerpt, IOException cause) {

    /** The failure categories. */
    public enum Kind {
        /** The tap wrote a line that is not valid JSON. */
        INVALID_LINE,
        /** The tap wrote a line longer than the relay's maximum line length. */
        LINE_TOO_LONG,
        /** Reading the tap's output failed (not end of stream: an I/O error). */
        TAP_READ_FAILED,
        /** Writing to the target failed: it closed its input (exited, or closed stdin) early. */
        TARGET_CLOSED
    }

    /** Checks that kind and message are present. */
    public RelayFailure {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }
}
