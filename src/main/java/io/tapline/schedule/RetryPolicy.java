package io.tapline.schedule;

import io.tapline.pipeline.Pipeline;

import java.time.Duration;

/**
 * A pipeline's retry policy: at most {@code maxAttempts} attempts in total, waiting
 * {@code backoff * 2^(attempt-1)}, at most {@code maxBackoff}, after failed attempt
 * {@code attempt}.
 *
 * @param maxAttempts attempts in total, at least 1 (1 = never retry)
 * @param backoff wait after the first failed attempt, not negative
 * @param maxBackoff cap of the wait, not negative
 */
public record RetryPolicy(int maxAttempts, Duration backoff, Duration maxBackoff) {

    /** @throws IllegalArgumentException on a negative duration or fewer than 1 attempt */
    public RetryPolicy {
        if (maxAttempts < 1 || backoff.isNegative() || maxBackoff.isNegative()) {
            throw new IllegalArgumentException("maxAttempts must be at least 1 and durations not negative");
        }
    }

    /** The policy stored on a pipeline ({@code retry_max_attempts}, {@code retry_backoff_seconds}, {@code retry_backoff_max_seconds}). */
    public static RetryPolicy of(Pipeline p) {
        return new RetryPolicy(p.retryMaxAttempts, Duration.ofSeconds(p.retryBackoffSeconds),
                Duration.ofSeconds(p.retryBackoffMaxSeconds));
    }

    /**
     * The wait before the attempt that follows failed attempt {@code attempt}:
     * {@code backoff * 2^(attempt-1)}, capped at {@code maxBackoff} (no overflow for any attempt).
     *
     * @param attempt the number of the attempt that failed, from 1
     * @throws IllegalArgumentException when {@code attempt < 1}
     */
    public Duration delay(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt numbers start at 1");
        }
        int shift = attempt - 1;
        if (backoff.isZero()) {
            return Duration.ZERO;
        }
        if (shift >= 62 || backoff.toMillis() > (maxBackoff.toMillis() >> shift)) {
            return maxBackoff;
        }
        Duration d = backoff.multipliedBy(1L << shift);
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }

    /** True when another attempt may follow failed attempt {@code attempt}. */
    public boolean retriesAfter(int attempt) {
        return attempt < maxAttempts;
    }
}
