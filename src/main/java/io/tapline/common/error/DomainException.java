package io.tapline.common.error;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error that services and the run engine throw when a request cannot be carried out: the
 * thing asked for is missing, the input is wrong, it conflicts with what is stored, a limit or a
 * dependency stands in the way. It names what went wrong in domain terms only; the web edge
 * ({@link ProblemMappers}) turns each kind into an RFC 9457 problem ({@link ProblemType}), so no
 * layer below the resources knows about HTTP.
 *
 * <p>The family is sealed so that the mapping is total (a switch over the kinds, checked by the
 * compiler) and so that a catch site can take exactly the kind it handles, e.g. a merge conflict,
 * instead of every error (the way a checkpoint could silently be dropped before).
 *
 * <p>The message is the human detail, shown to the caller: it never holds secret values or Java
 * type names. {@link #details()} are extra facts for clients (e.g. {@code activeRunId}), written
 * as top-level members of the problem body.
 */
public abstract sealed class DomainException extends RuntimeException
        permits NotFoundException, InvalidInputException, MalformedInputException, ConflictException,
        VersionMismatchException, UnprocessableException, LimitExceededException, UnavailableException,
        ConnectorFailedException {

    private static final long serialVersionUID = 1L;

    private final Map<String, Object> details = new LinkedHashMap<>();

    /**
     * @param detail human explanation of this occurrence
     */
    protected DomainException(String detail) {
        super(detail);
    }

    /**
     * @param detail human explanation of this occurrence
     * @param cause the underlying error (logged, never shown)
     */
    protected DomainException(String detail, Throwable cause) {
        super(detail, cause);
    }

    /**
     * Adds a fact for clients (a JSON-serialisable value) and returns this exception.
     *
     * @param name member name in the problem body, e.g. {@code activeRunId}
     * @param value its value (string, number, boolean, list or map)
     */
    public DomainException with(String name, Object value) {
        details.put(name, value);
        return this;
    }

    /** The facts added with {@link #with}, in insertion order; unmodifiable. */
    public Map<String, Object> details() {
        return Collections.unmodifiableMap(details);
    }
}
