package io.tapline.common.error;

import java.util.List;

/**
 * Input that is well formed but not acceptable: a field or parameter breaks a rule (a name with a
 * {@code /}, an unknown interval, a negative limit). Names each field at fault. Maps to 400
 * {@code validation}.
 */
public final class InvalidInputException extends DomainException {

    private static final long serialVersionUID = 1L;

    private final List<Problem.FieldError> errors;

    /**
     * @param detail human explanation
     * @param errors the fields at fault (JSON path such as {@code schedule.interval}, or a parameter name);
     *               empty when none can be named
     */
    public InvalidInputException(String detail, List<Problem.FieldError> errors) {
        super(detail);
        this.errors = errors == null ? List.of() : List.copyOf(errors);
    }

    /**
     * One invalid field: the detail reads {@code "<field>: <message>"}.
     *
     * @param field JSON path or parameter name
     * @param message what is wrong with it, e.g. {@code "must not be blank"}
     */
    public static InvalidInputException field(String field, String message) {
        return new InvalidInputException(field + ": " + message, List.of(new Problem.FieldError(field, message)));
    }

    /** The fields at fault, in the order found; may be empty. */
    public List<Problem.FieldError> errors() {
        return errors;
    }
}
