package io.tapline.common.error;

/**
 * A dependency is unavailable for now (the database, a lock held by Meltano past its timeout);
 * the same request may succeed later. Maps to 503 {@code unavailable}.
 */
public final class UnavailableException extends DomainException {

    private static final long serialVersionUID = 1L;

    /**
     * @param detail what is unavailable and what to do
     */
    public UnavailableException(String detail) {
        super(detail);
    }

    /**
     * @param detail what is unavailable and what to do
     * @param cause the underlying error (logged, never shown)
     */
    public UnavailableException(String detail, Throwable cause) {
        super(detail, cause);
    }
}
