package io.tapline.common.db;

import org.junit.jupiter.api.Test;

import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link DatabaseRetry}: its two policies, their deadlines, give-ups and which errors are retried. */
class DatabaseRetryTest {

    private static RuntimeException unreachable() {
        return new IllegalStateException("write failed", new SQLTransientConnectionException("Connection refused"));
    }

    @Test
    void untilRetriesFailedAttemptsUntilOneSucceeds() {
        AtomicInteger calls = new AtomicInteger();
        assertTrue(DatabaseRetry.until(System.nanoTime() + 10_000_000_000L, () -> calls.incrementAndGet() == 3));
        assertEquals(3, calls.get());
    }

    @Test
    void untilGivesUpAtTheDeadlineWithoutPausingPastIt() {
        AtomicInteger calls = new AtomicInteger();
        long start = System.nanoTime();
        assertFalse(DatabaseRetry.until(start + 250_000_000L, () -> {
            calls.incrementAndGet();
            return false;
        }));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        // 100 ms, then 150 ms (the rest of the deadline, not 200), then the deadline has passed
        assertEquals(3, calls.get());
        assertTrue(tookMs >= 250 && tookMs < 1000, tookMs + " ms");
    }

    @Test
    void whileUnreachableWaitsOutAnOutageBeyondTheOtherErrorsLimit() {
        AtomicInteger calls = new AtomicInteger();
        List<RuntimeException> logged = new ArrayList<>();
        RuntimeException first = unreachable();
        Optional<String> r = DatabaseRetry.whileUnreachable(2, () -> false, () -> false, logged::add, () -> {
            int n = calls.incrementAndGet();
            if (n <= 3) {
                throw n == 1 ? first : unreachable();
            }
            return "stored";
        });
        assertEquals(Optional.of("stored"), r);
        assertEquals(4, calls.get());
        assertEquals(List.of(first), logged);
    }

    @Test
    void whileUnreachableThrowsTheLastOfTheOtherErrors() {
        AtomicInteger calls = new AtomicInteger();
        IllegalArgumentException bug = new IllegalArgumentException("bug");
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> DatabaseRetry.whileUnreachable(2,
                () -> false, () -> false, e -> { }, () -> {
                    calls.incrementAndGet();
                    throw calls.get() == 1 ? new IllegalStateException("first") : bug;
                }));
        assertSame(bug, thrown);
        assertEquals(2, calls.get());
    }

    @Test
    void whileUnreachableGivesUpWhenTheCallerSaysSo() {
        AtomicInteger calls = new AtomicInteger();
        assertEquals(Optional.empty(), DatabaseRetry.whileUnreachable(5, () -> true, () -> false, e -> { },
                calls::incrementAndGet));
        assertEquals(0, calls.get());
        assertEquals(Optional.empty(), DatabaseRetry.whileUnreachable(5, () -> false, () -> true, e -> { }, () -> {
            calls.incrementAndGet();
            throw unreachable();
        }));
        assertEquals(1, calls.get());
    }

    @Test
    void anInterruptEndsThePause() {
        Thread.currentThread().interrupt();
        try {
            assertFalse(DatabaseRetry.until(System.nanoTime() + 10_000_000_000L, () -> false));
            assertTrue(Thread.interrupted());
        } finally {
            Thread.interrupted();
        }
    }
}
