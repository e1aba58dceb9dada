package io.tapline.events;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Times read from native queries, whatever type the driver returns for {@code timestamptz}. */
public final class SqlTimes {

    private SqlTimes() {
    }

    /** The value as an UTC {@link OffsetDateTime}; null stays null. */
    public static OffsetDateTime of(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof OffsetDateTime t) {
            return t;
        }
        if (o instanceof Instant i) {
            return i.atOffset(ZoneOffset.UTC);
        }
        if (o instanceof Timestamp t) {
            return t.toInstant().atOffset(ZoneOffset.UTC);
        }
        throw new IllegalStateException("unexpected time value " + o.getClass().getSimpleName());
    }
}
