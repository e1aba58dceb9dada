package io.tapline.common.error;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An HTTP problem that becomes an RFC 9457 problem response ({@link ProblemMappers}), thrown with a
 * {@link ProblemType} and a human detail, never with internal class names. Only the web edge
 * throws it: resources and request filters, for answers that are HTTP only (a method not allowed
 * on a path, a query parameter of one endpoint). Services and every class below the resources
 * throw a {@link DomainException} instead ({@code LayersTest} checks this).
 */
public class ProblemException extends RuntimeException {

    private final ProblemType type;
    private final List<Problem.FieldError> errors;
    private final Map<String, Object> extensions = new LinkedHashMap<>();

    /**
     * @param type the problem type (sets the status)
     * @param detail human explanation shown to the caller
     */
    public ProblemException(ProblemType type, String detail) {
        this(type, detail, null);
    }

    /**
     * @param type the problem type (sets the status)
     * @param detail human explanation shown to the caller
     * @param errors per-field errors, or null
     */
    public ProblemException(ProblemType type, String detail, List<Problem.FieldError> errors) {
        super(detail);
        this.type = type;
        this.errors = errors;
    }

    /** A 400 validation problem naming one field. */
    public static ProblemException invalid(String field, String message) {
        return new ProblemException(ProblemType.VALIDATION, field + ": " + message,
                List.of(new Problem.FieldError(field, message)));
    }

    /** A 404 for a missing resource, e.g. {@code notFound("Pipeline", "daily")}. */
    public static ProblemException notFound(String kind, String id) {
        return new ProblemException(ProblemType.NOT_FOUND, kind + " '" + id + "' does not exist.");
    }

    /** Adds an extension member to the problem body and returns this. */
    public ProblemException with(String name, Object value) {
        extensions.put(name, value);
        return this;
    }

    public ProblemType type() {
        return type;
    }

    public List<Problem.FieldError> errors() {
        return errors;
    }

    public Map<String, Object> extensions() {
        return extensions;
    }
}
