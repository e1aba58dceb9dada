package io.tapline.connector;

import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of {@link Relay#relay}: the final counts and, when the relay stopped early, why.
 */
public final class RelayResult {

    private final StreamCounts counts;
    private final RelayFailure failure;

    /**
     * Creates a result.
     *
     * @param counts  what was forwarded (lines before a failure)
     * @param failure why the relay stopped early, or null when it reached the end of the tap's output
     */
    public RelayResult(StreamCounts counts, RelayFailure failure) {
        this.counts = Objects.requireNonNull(counts, "counts");
        this.failure = failure;
    }

    /** What was forwarded. Lines that caused a failure are not included (they were not forwarded). */
    public StreamCounts counts() {
        return counts;
    }

    /** Why the relay stopped early; empty when it forwarded everything up to the end of the tap's output. */
    public Optional<RelayFailure> failure() {
        return Optional.ofNullable(failure);
    }

    /** True when the relay reached the end of the tap's output and forwarded everything. */
    public boolean succeeded() {
        return failure == null;
    }

    @Override
    public String toString() {
        return "RelayResult[counts=" + counts + ", failure=" + failure + "]";
    }
}
