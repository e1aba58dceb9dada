package io.tapline.common.time;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/**
 * Timestamps as PostgreSQL stores them ({@code timestamptz}: microseconds), so that the answer to
 * a write shows the same value, to the digit, as a later read.
 */
public final class Timestamps {

    private Timestamps() {
    }

    /** Now on {@code clock}, truncated to microseconds. */
    public static OffsetDateTime now(Clock clock) {
        return OffsetDateTime.now(clock).truncatedTo(ChronoUnit.MICROS);
    }
}
