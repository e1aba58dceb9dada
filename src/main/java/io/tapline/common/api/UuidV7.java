package io.tapline.common.api;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * UUID version 7 (RFC 9562 §5.7): 48-bit Unix milliseconds, then random bits. Within one JVM the
 * ids are strictly increasing (the 12-bit {@code rand_a} field is a counter within a millisecond,
 * RFC 9562 §6.2 method 1), so they sort by creation time, which keyset pagination relies on.
 */
public final class UuidV7 {

    private static final long MAX_MILLIS = (1L << 48) - 1;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static long lastMillis = -1;
    private static int counter;

    private UuidV7() {
    }

    /** A new UUIDv7 for the current time. */
    public static UUID next() {
        return at(System.currentTimeMillis());
    }

    /** A new UUIDv7 for {@code epochMillis} (clamped so ids never go backwards within this JVM). */
    public static synchronized UUID at(long epochMillis) {
        long ms = Math.max(epochMillis, lastMillis);
        if (ms == lastMillis) {
            counter++;
            if (counter > 0xFFF) {
                ms++;
                counter = RANDOM.nextInt(0x400);
            }
        } else {
            counter = RANDOM.nextInt(0x400);
        }
        lastMillis = ms;
        long msb = (ms << 16) | 0x7000L | (counter & 0xFFFL);
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    /**
     * The lowest UUIDv7 of {@code epochMillis}: a keyset bound for "created at or after". Times
     * before 1970 give the lowest id of all, times past the 48-bit range the highest.
     */
    public static UUID lowerBound(long epochMillis) {
        long ms = Math.max(0, Math.min(epochMillis, MAX_MILLIS));
        return new UUID((ms << 16) | 0x7000L, 0x8000000000000000L);
    }
}
