package io.tapline.common.error;

/**
 * A configured bound was reached: too much at once (concurrent readers, probes, followers) or too
 * large (a body, a value). Maps to 429 {@code too-many-requests} or 413 {@code payload-too-large}.
 */
public final class LimitExceededException extends DomainException {

    private static final long serialVersionUID = 1L;

    /** Which kind of bound. */
    public enum Limit {
        /** A cap on concurrent use; retry after one ends. */
        CONCURRENCY,
        /** A size cap; the input must be made smaller. */
        SIZE
    }

    private final Limit limit;

    /**
     * @param limit which kind of bound
     * @param detail human explanation naming the bound and the setting that sets it
     */
    public LimitExceededException(Limit limit, String detail) {
        super(detail);
        this.limit = limit;
    }

    /** Which kind of bound was reached. */
    public Limit limit() {
        return limit;
    }
}
