package io.tapline.common.db;

import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The one retry loop of database work: an attempt is repeated after a pause of 100 ms that doubles
 * after each failure, up to 2 s. Two policies:
 * <ul>
 *   <li>{@link #until}: any failure is retried until a deadline ({@link System#nanoTime()}); the
 *   last pause ends at the deadline (a run's state stores at its end);</li>
 *   <li>{@link #whileUnreachable}: without a deadline while the database is unreachable
 *   ({@link DatabaseErrors#unreachable}), a few attempts for any other error, until the caller
 *   gives up (the run end writer, which waits out an outage).</li>
 * </ul>
 * An interrupt while pausing ends the loop (without result, the thread's interrupt flag set again).
 */
public final class DatabaseRetry {

    /** The pause after the first failure. */
    static final long FIRST_PAUSE_MILLIS = 100;
    /** The longest pause. */
    static final long MAX_PAUSE_MILLIS = 2000;

    private static final BooleanSupplier NEVER = () -> false;

    private DatabaseRetry() {
    }

    /**
     * Calls {@code attempt} until it returns true or {@code deadline} has passed.
     *
     * @param deadline {@link System#nanoTime()} after which no attempt starts
     * @param attempt one try; false (or an exception it catches itself) is a failure
     * @return whether an attempt succeeded (false: deadline passed, or interrupted)
     */
    public static boolean until(long deadline, BooleanSupplier attempt) {
        return loop(deadline, NEVER, NEVER, () -> attempt.getAsBoolean() ? Optional.of(true) : Optional.empty())
                .isPresent();
    }

    /**
     * Calls {@code attempt} until it returns: while it fails because the database is unreachable,
     * without limit; other {@link RuntimeException}s are retried until the {@code otherErrors}-th,
     * which is thrown.
     *
     * @param otherErrors how many failures of another kind end the loop (at least 1)
     * @param stopBefore checked before every attempt: true gives up
     * @param stopAfterFailure checked after each failure, before its pause: true gives up
     * @param firstFailure told the first failure (to log it once)
     * @param attempt one try (its own transaction)
     * @return the attempt's result, or empty when given up
     * @throws RuntimeException the {@code otherErrors}-th failure that is not "unreachable"
     */
    public static <T> Optional<T> whileUnreachable(int otherErrors, BooleanSupplier stopBefore,
                                                   BooleanSupplier stopAfterFailure,
                                                   Consumer<RuntimeException> firstFailure, Supplier<T> attempt) {
        int[] failures = {0, 0};
        return loop(null, stopBefore, stopAfterFailure, () -> {
            try {
                return Optional.of(attempt.get());
            } catch (RuntimeException e) {
                if (failures[0]++ == 0) {
                    firstFailure.accept(e);
                }
                if (!DatabaseErrors.unreachable(e) && ++failures[1] >= otherErrors) {
                    throw e;
                }
                return Optional.empty();
            }
        });
    }

    /**
     * The loop: attempts until one gives a value, pausing between them.
     *
     * @param deadline {@link System#nanoTime()} after which no attempt starts, or null for none
     */
    private static <T> Optional<T> loop(Long deadline, BooleanSupplier stopBefore, BooleanSupplier stopAfterFailure,
                                        Supplier<Optional<T>> attempt) {
        long pause = FIRST_PAUSE_MILLIS;
        while (true) {
            if (stopBefore.getAsBoolean()) {
                return Optional.empty();
            }
            Optional<T> result = attempt.get();
            if (result.isPresent()) {
                return result;
            }
            long sleep = pause;
            if (deadline != null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                sleep = Math.min(pause, left / 1_000_000 + 1);
            }
            if (stopAfterFailure.getAsBoolean()) {
                return Optional.empty();
            }
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
            pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
        }
    }
}
