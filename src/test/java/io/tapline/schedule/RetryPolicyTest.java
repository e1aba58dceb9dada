package io.tapline.schedule;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetryPolicyTest {

    @Test
    void delayDoublesFromTheBackoffAndStopsAtTheCap() {
        RetryPolicy p = new RetryPolicy(10, Duration.ofSeconds(60), Duration.ofSeconds(600));
        assertEquals(Duration.ofSeconds(60), p.delay(1));
        assertEquals(Duration.ofSeconds(120), p.delay(2));
        assertEquals(Duration.ofSeconds(240), p.delay(3));
        assertEquals(Duration.ofSeconds(480), p.delay(4));
        assertEquals(Duration.ofSeconds(600), p.delay(5));
        assertEquals(Duration.ofSeconds(600), p.delay(63));
        assertEquals(Duration.ofSeconds(600), p.delay(Integer.MAX_VALUE));
    }

    @Test
    void zeroBackoffRetriesAtOnceAndBadInputIsRefused() {
        assertEquals(Duration.ZERO, new RetryPolicy(3, Duration.ZERO, Duration.ofSeconds(10)).delay(40));
        RetryPolicy p = new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofDays(7));
        assertEquals(Duration.ofSeconds(1L << 19), p.delay(20));
        assertEquals(Duration.ofDays(7), p.delay(21));
        assertThrows(IllegalArgumentException.class, () -> p.delay(0));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(1, Duration.ofSeconds(-1), Duration.ZERO));
    }

    @Test
    void attemptsBelowTheMaximumAreRetried() {
        RetryPolicy p = new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertTrue(p.retriesAfter(1));
        assertTrue(p.retriesAfter(2));
        assertFalse(p.retriesAfter(3));
        assertFalse(new RetryPolicy(1, Duration.ZERO, Duration.ZERO).retriesAfter(1));
    }
}
