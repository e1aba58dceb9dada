package io.tapline.common.error;

/**
 * Input that cannot be read at all: text that is not JSON (or YAML, for a meltano.yml), not UTF-8,
 * or of the wrong overall shape. Maps to 400 {@code malformed-body}.
 */
public final class MalformedInputException extends DomainException {

    private static final long serialVersionUID = 1L;

    /**
     * @param detail what could not be read and where (line and column when known)
     */
    public MalformedInputException(String detail) {
        super(detail);
    }

    /**
     * @param detail what could not be read and where
     * @param cause the parser's error (logged at debug, never shown)
     */
    public MalformedInputException(String detail, Throwable cause) {
        super(detail, cause);
    }
}
