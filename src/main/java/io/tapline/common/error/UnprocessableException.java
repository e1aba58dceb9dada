package io.tapline.common.error;

import java.util.List;

/**
 * The input refers to something that is missing or of the wrong kind (a pipeline naming a loader
 * that does not exist, or an extractor as its loader). Maps to 422 {@code unprocessable}; the
 * fields holding the references, when named, become the problem's {@code errors}.
 */
public final class UnprocessableException extends DomainException {

    private static final long serialVersionUID = 1L;

    private final List<Problem.FieldError> errors;

    /**
     * @param detail what is referred to and why it cannot be used
     */
    public UnprocessableException(String detail) {
        this(detail, null);
    }

    /**
     * @param detail what is referred to and why it cannot be used
     * @param errors the fields holding the references (JSON paths such as {@code mappers[0]}), or
     *               null or empty when none is named
     */
    public UnprocessableException(String detail, List<Problem.FieldError> errors) {
        super(detail);
        this.errors = errors == null ? List.of() : List.copyOf(errors);
    }

    /** The fields holding the unusable references, in the order found; may be empty. */
    public List<Problem.FieldError> errors() {
        return errors;
    }
}
