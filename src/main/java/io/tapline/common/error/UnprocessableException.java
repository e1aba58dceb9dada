package io.tapline.common.error;

/**
 * The input refers to something that is missing or of the wrong kind (a pipeline naming a loader
 * that does not exist, or an extractor as its loader). Maps to 422 {@code unprocessable}.
 */
public final class UnprocessableException extends DomainException {

    private static final long serialVersionUID = 1L;

    /**
     * @param detail what is referred to and why it cannot be used
     */
    public UnprocessableException(String detail) {
        super(detail);
    }
}
