package io.tapline.common.error;

/**
 * The catalogue of problem types the API returns; docs/problems.md describes each. The URN
 * ({@code urn:tapline:problem:<slug>}) is stable: clients may switch on it.
 */
public enum ProblemType {
    /** The request body or a parameter is invalid; {@code errors} names the fields. */
    VALIDATION("validation", 400, "Invalid request"),
    /** The body is not parseable JSON or has the wrong shape. */
    MALFORMED_BODY("malformed-body", 400, "Malformed request body"),
    /** The resource does not exist. */
    NOT_FOUND("not-found", 404, "Resource not found"),
    /** The HTTP method is not supported on this path. */
    METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed"),
    /** The request or response media type is not supported. */
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported media type"),
    /** The representation cannot be produced in the accepted media type. */
    NOT_ACCEPTABLE("not-acceptable", 406, "Not acceptable"),
    /** The resource already exists. */
    ALREADY_EXISTS("already-exists", 409, "Resource already exists"),
    /** The resource is still used by another one (a plugin by a pipeline). */
    IN_USE("in-use", 409, "Resource in use"),
    /** Another pipeline already owns this state ID. */
    STATE_ID_TAKEN("state-id-taken", 409, "State ID already used"),
    /** A run of this state ID is already queued or running. */
    RUN_ACTIVE("run-active", 409, "A run is already active"),
    /** The requested status change is not allowed from the current status. */
    INVALID_TRANSITION("invalid-transition", 409, "Invalid status transition"),
    /** A state value cannot be combined with the stored one (a type conflict in the merge). */
    STATE_CONFLICT("state-conflict", 409, "State cannot be merged"),
    /** {@code If-Match} does not match the current ETag. */
    PRECONDITION_FAILED("precondition-failed", 412, "Precondition failed"),
    /** The request body is larger than the configured limit. */
    PAYLOAD_TOO_LARGE("payload-too-large", 413, "Request body too large"),
    /** A referenced resource is missing or of the wrong kind (a pipeline's plugins). */
    UNPROCESSABLE("unprocessable", 422, "Unprocessable reference"),
    /** No or an invalid bearer token. */
    UNAUTHORIZED("unauthorized", 401, "Authentication required"),
    /** The token's roles do not allow this operation. */
    FORBIDDEN("forbidden", 403, "Operation not allowed"),
    /** The request body did not arrive within {@code tapline.api.body-timeout}. */
    REQUEST_TIMEOUT("request-timeout", 408, "Request body too slow"),
    /** The request line or headers are too large (414, 431). */
    REQUEST_TOO_LARGE("request-too-large", 431, "Request line or headers too large"),
    /** A cap on concurrent use was reached (log followers, uploads); retry after closing one. */
    TOO_MANY_REQUESTS("too-many-requests", 429, "Too many requests"),
    /** The extractor has no catalog yet (nothing stored, nothing discovered): {@code POST ...:discover} first. */
    NO_CATALOG("no-catalog", 409, "No catalog yet"),
    /** A connector started for the request ({@code --discover}, {@code --about}) failed or passed its time limit. */
    CONNECTOR_FAILED("connector-failed", 502, "Connector failed"),
    /** Unexpected server error; the log has the details under {@code errorId}. */
    INTERNAL("internal", 500, "Internal server error"),
    /** The database or another dependency is unavailable; retry later. */
    UNAVAILABLE("unavailable", 503, "Service unavailable");

    private final String slug;
    private final int status;
    private final String title;

    ProblemType(String slug, int status, String title) {
        this.slug = slug;
        this.status = status;
        this.title = title;
    }

    /** The stable type URI, for example {@code urn:tapline:problem:not-found}. */
    public String uri() {
        return "urn:tapline:problem:" + slug;
    }

    /** HTTP status code. */
    public int status() {
        return status;
    }

    /** Short, occurrence-independent title. */
    public String title() {
        return title;
    }
}
