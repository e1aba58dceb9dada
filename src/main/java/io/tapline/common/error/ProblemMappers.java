package io.tapline.common.error;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.tapline.common.db.DatabaseErrors;
import jakarta.persistence.OptimisticLockException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.hibernate.StaleObjectStateException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The one place where exceptions become {@code application/problem+json} responses
 * (RFC 9457). Stack traces and Java type names go to the service log only; the caller gets a
 * stable {@code type}, a human {@code detail} and, for validation, the fields at fault.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    /**
     * Database constraints whose violation is a client error, by constraint name (see the Flyway
     * migrations), with the problem they become.
     */
    private static final Map<String, ProblemType> CONSTRAINTS = Map.of(
            "uq_plugin_type_name", ProblemType.ALREADY_EXISTS,
            "uq_pipeline_name", ProblemType.ALREADY_EXISTS,
            "fk_pipeline_extractor", ProblemType.IN_USE,
            "fk_pipeline_loader", ProblemType.IN_USE,
            "fk_pipeline_transform", ProblemType.IN_USE,
            "fk_pipeline_mapper_plugin", ProblemType.IN_USE);

    @ServerExceptionMapper
    public Response problem(ProblemException e, UriInfo uri) {
        Response r = respond(e.type(), e.getMessage(), uri, e.errors(), e.extensions(), null);
        if (e.type() == ProblemType.PAYLOAD_TOO_LARGE) {
            // the rest of the body is never read: the connection cannot carry another request
            return Response.fromResponse(r).header("Connection", "close").build();
        }
        return r;
    }

    /**
     * A domain error thrown below the edge ({@link DomainException}): its kind chooses the problem
     * type ({@link #typeOf}), its message is the detail, its details are extension members.
     */
    @ServerExceptionMapper
    public Response domain(DomainException e, UriInfo uri) {
        ProblemType type = typeOf(e);
        List<Problem.FieldError> errors = e instanceof InvalidInputException i && !i.errors().isEmpty() ? i.errors()
                : e instanceof UnprocessableException u && !u.errors().isEmpty() ? u.errors() : null;
        String errorId = null;
        if (type == ProblemType.UNAVAILABLE && e.getCause() != null) {
            errorId = UUID.randomUUID().toString();
            LOG.warnf(e.getCause(), "%s [errorId=%s]", e.getMessage(), errorId);
        }
        Response r = respond(type, e.getMessage(), uri, errors, e.details().isEmpty() ? null : e.details(), errorId);
        if (type == ProblemType.PAYLOAD_TOO_LARGE) {
            // the rest of the body is never read: the connection cannot carry another request
            return Response.fromResponse(r).header("Connection", "close").build();
        }
        return r;
    }

    /**
     * The problem type of each kind of domain error; total over the sealed family (a test walks
     * {@link Class#getPermittedSubclasses()} and every {@link ConflictException.Reason}).
     *
     * @param e the domain error
     * @return its problem type, never null
     */
    public static ProblemType typeOf(DomainException e) {
        if (e instanceof NotFoundException) {
            return ProblemType.NOT_FOUND;
        } else if (e instanceof InvalidInputException) {
            return ProblemType.VALIDATION;
        } else if (e instanceof MalformedInputException) {
            return ProblemType.MALFORMED_BODY;
        } else if (e instanceof ConflictException c) {
            return switch (c.reason()) {
                case ALREADY_EXISTS -> ProblemType.ALREADY_EXISTS;
                case IN_USE -> ProblemType.IN_USE;
                case STATE_ID_TAKEN -> ProblemType.STATE_ID_TAKEN;
                case RUN_ACTIVE -> ProblemType.RUN_ACTIVE;
                case INVALID_TRANSITION -> ProblemType.INVALID_TRANSITION;
                case STATE_CONFLICT -> ProblemType.STATE_CONFLICT;
                case NO_CATALOG -> ProblemType.NO_CATALOG;
            };
        } else if (e instanceof VersionMismatchException) {
            return ProblemType.PRECONDITION_FAILED;
        } else if (e instanceof UnprocessableException) {
            return ProblemType.UNPROCESSABLE;
        } else if (e instanceof LimitExceededException l) {
            return l.limit() == LimitExceededException.Limit.CONCURRENCY
                    ? ProblemType.TOO_MANY_REQUESTS : ProblemType.PAYLOAD_TOO_LARGE;
        } else if (e instanceof UnavailableException) {
            return ProblemType.UNAVAILABLE;
        } else if (e instanceof ConnectorFailedException) {
            return ProblemType.CONNECTOR_FAILED;
        }
        throw new IllegalStateException("unmapped domain error kind " + e.getClass().getSimpleName());
    }

    @ServerExceptionMapper
    public Response constraintViolation(ConstraintViolationException e, UriInfo uri) {
        List<Problem.FieldError> errors = new ArrayList<>();
        for (ConstraintViolation<?> v : e.getConstraintViolations()) {
            errors.add(new Problem.FieldError(fieldPath(v.getPropertyPath().toString()), v.getMessage()));
        }
        errors.sort(Comparator.comparing(Problem.FieldError::field));
        String detail = errors.size() == 1
                ? errors.get(0).field() + ": " + errors.get(0).message()
                : errors.size() + " fields are invalid.";
        return respond(ProblemType.VALIDATION, detail, uri, errors, null, null);
    }

    @ServerExceptionMapper
    public Response json(JsonProcessingException e, UriInfo uri) {
        String path = e instanceof JsonMappingException m ? jsonPath(m.getPath()) : "";
        if (e.getCause() instanceof ProblemException p) {
            return problem(p, uri);
        }
        if (e.getCause() instanceof DomainException d) {
            return domain(d, uri);
        }
        String detail;
        List<Problem.FieldError> errors = null;
        com.fasterxml.jackson.core.exc.StreamConstraintsException limit = null;
        for (Throwable t = e; t != null && limit == null; t = t.getCause()) {
            limit = t instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException c ? c : null;
        }
        if (limit != null) {
            detail = "The request body cannot be read: " + plainJsonMessage(limit.getOriginalMessage()) + ".";
        } else if (e instanceof UnrecognizedPropertyException u) {
            detail = "Unknown field '" + (path.isEmpty() ? u.getPropertyName() : path) + "'."
                    + CloseNames.closest(u.getPropertyName(), u.getKnownPropertyIds())
                            .map(n -> " Did you mean '" + n + "'?").orElse("");
            errors = List.of(new Problem.FieldError(path, "unknown field"));
        } else if (e instanceof InvalidFormatException f
                && io.tapline.common.api.JsonInputChecks.NUL_MESSAGE.equals(f.getOriginalMessage())) {
            return respond(ProblemType.VALIDATION, "Field '" + path + "' contains a NUL character (\\u0000), which no"
                    + " value may hold.", uri, List.of(new Problem.FieldError(path, "contains a NUL character")), null, null);
        } else if (e instanceof InvalidFormatException f) {
            detail = "Field '" + path + "' has an invalid value" + (f.getValue() == null ? "" : " '" + f.getValue() + "'")
                    + expected(f.getTargetType()) + ".";
            errors = List.of(new Problem.FieldError(path, "invalid value"));
        } else if (e instanceof MismatchedInputException m && !path.isEmpty()) {
            detail = "Field '" + path + "' has the wrong type" + expected(m.getTargetType()) + ".";
            errors = List.of(new Problem.FieldError(path, "wrong type" + expected(m.getTargetType())));
        } else if (e instanceof MismatchedInputException) {
            detail = "The request body must be a JSON object.";
        } else if (!(e instanceof com.fasterxml.jackson.core.JsonParseException) && !path.isEmpty()) {
            // say why (a key given twice inside the field, say), not only where
            String why = e.getCause() instanceof JsonProcessingException c ? plainJsonMessage(c.getOriginalMessage()) : null;
            detail = "Field '" + path + "' is invalid" + (why == null || why.isBlank() ? "" : ": " + why) + ".";
            errors = List.of(new Problem.FieldError(path, "invalid value"));
        } else {
            String msg = plainJsonMessage(e.getOriginalMessage());
            int nl = msg == null ? -1 : msg.indexOf('\n');
            detail = "The request body is not valid JSON"
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")")
                    + (msg == null ? "" : ": " + (nl > 0 ? msg.substring(0, nl) : msg)) + "."
                    + (isImport(uri) ? " To send the meltano.yml as YAML, use Content-Type application/yaml." : "");
        }
        return respond(ProblemType.MALFORMED_BODY, detail, uri, errors, null, null);
    }

    @ServerExceptionMapper
    public Response jsonParse(com.fasterxml.jackson.core.JsonParseException e, UriInfo uri) {
        return json(e, uri);
    }

    @ServerExceptionMapper
    public Response jsonMismatch(MismatchedInputException e, UriInfo uri) {
        return json(e, uri);
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        if (e.getCause() instanceof JsonProcessingException j) {
            return json(j, uri);
        }
        if (e.getCause() instanceof DomainException d) {
            // a typed parameter's converter refused the value: REST wraps it in a 404 (or 400)
            return domain(d, uri);
        }
        int status = e.getResponse() == null ? 500 : e.getResponse().getStatus();
        ProblemType type = switch (status) {
            case 400 -> ProblemType.VALIDATION;
            case 401 -> ProblemType.UNAUTHORIZED;
            case 403 -> ProblemType.FORBIDDEN;
            case 404 -> ProblemType.NOT_FOUND;
            case 405 -> ProblemType.METHOD_NOT_ALLOWED;
            case 406 -> ProblemType.NOT_ACCEPTABLE;
            case 413 -> ProblemType.PAYLOAD_TOO_LARGE;
            case 415 -> ProblemType.UNSUPPORTED_MEDIA_TYPE;
            default -> null;
        };
        if (type == null) {
            return internal(e, uri);
        }
        String detail = switch (status) {
            case 404 -> "No resource at " + uri.getPath() + ".";
            case 405 -> "This method is not supported on " + uri.getPath() + ".";
            case 415 -> unsupportedMediaType(uri);
            case 406 -> "The Accept header excludes every media type this endpoint produces (JSON, or plain text for logs).";
            case 413 -> "The request body is larger than the configured limit.";
            default -> safeMessage(e.getMessage(), type.title());
        };
        return respond(type, detail, uri, null, null, null);
    }

    /** No token on an endpoint that needs one: 401 with {@code WWW-Authenticate: Bearer}. */
    @ServerExceptionMapper
    public Response unauthorized(io.quarkus.security.UnauthorizedException e, UriInfo uri) {
        return challenge(respond(ProblemType.UNAUTHORIZED, "This operation needs a bearer token: send"
                + " 'Authorization: Bearer <token>'.", uri, null, null, null), null);
    }

    /** A token that is malformed, expired, or not signed by the configured key: 401. */
    @ServerExceptionMapper
    public Response authenticationFailed(io.quarkus.security.AuthenticationFailedException e, UriInfo uri) {
        if (e != null) {
            LOG.debugf("Token rejected on %s: %s", uri == null ? "?" : uri.getPath(), e.getMessage());
        }
        return challenge(respond(ProblemType.UNAUTHORIZED, invalidTokenDetail(io.quarkus.runtime.LaunchMode.current()),
                uri, null, null, null), "invalid_token");
    }

    /**
     * The 401 detail for a rejected token: in dev mode, where the service makes its own admin
     * token, where that token is; otherwise to ask the identity provider.
     */
    static String invalidTokenDetail(io.quarkus.runtime.LaunchMode mode) {
        if (mode == io.quarkus.runtime.LaunchMode.DEVELOPMENT) {
            return "The bearer token is invalid or expired; dev mode writes a valid admin token to .tapline/dev-token"
                    + " at every start: export TOKEN=$(cat .tapline/dev-token).";
        }
        return "The bearer token is invalid or expired; get a new one from your identity provider.";
    }

    /** Authentication that could not be completed: 401. */
    @ServerExceptionMapper
    public Response authenticationCompletion(io.quarkus.security.AuthenticationCompletionException e, UriInfo uri) {
        return authenticationFailed(null, uri);
    }

    /** A valid token whose roles do not allow the operation: 403. */
    @ServerExceptionMapper
    public Response forbidden(io.quarkus.security.ForbiddenException e, UriInfo uri) {
        return respond(ProblemType.FORBIDDEN, "The token's roles do not allow this operation (viewer reads;"
                + " operator also runs and edits state; admin also manages plugins, pipelines, bulk state operations"
                + " and the audit trail).", uri, null, null, null);
    }

    private static Response challenge(Response r, String error) {
        return Response.fromResponse(r).header("WWW-Authenticate", error == null ? "Bearer"
                : "Bearer error=\"" + error + "\"").build();
    }

    @ServerExceptionMapper
    public Response optimisticLock(OptimisticLockException e, UriInfo uri) {
        return respond(ProblemType.PRECONDITION_FAILED,
                "The resource was changed by another request; read it again and retry.", uri, null, null, null);
    }

    @ServerExceptionMapper
    public Response staleObject(StaleObjectStateException e, UriInfo uri) {
        return optimisticLock(null, uri);
    }

    @ServerExceptionMapper
    public Response hibernateConstraint(org.hibernate.exception.ConstraintViolationException e, UriInfo uri) {
        String name = e.getConstraintName() == null ? "" : e.getConstraintName().toLowerCase(Locale.ROOT);
        for (Map.Entry<String, ProblemType> c : CONSTRAINTS.entrySet()) {
            if (name.endsWith(c.getKey())) {
                return respond(c.getValue(), constraintDetail(c.getKey()), uri, null, null, null);
            }
        }
        return internal(e, uri);
    }

    @ServerExceptionMapper
    public Response any(Throwable e, UriInfo uri) {
        if (fromTokenParser(e)) {
            LOG.debugf("Token rejected on %s: its claims have unexpected types (%s)", uri == null ? "?" : uri.getPath(), e);
            return challenge(respond(ProblemType.UNAUTHORIZED, "The bearer token cannot be used: its claims have"
                    + " unexpected types (groups must be an array of role names).", uri, null, null, null), "invalid_token");
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProblemException p) {
                return problem(p, uri);
            }
            if (t instanceof DomainException d) {
                return domain(d, uri);
            }
            if (t instanceof org.hibernate.exception.ConstraintViolationException c) {
                return hibernateConstraint(c, uri);
            }
            if (t instanceof OptimisticLockException || t instanceof StaleObjectStateException) {
                return optimisticLock(null, uri);
            }
            if (t instanceof io.vertx.core.http.HttpClosedException) {
                // The caller went away (or was cut off after the body timeout) while its body was read:
                // nothing can be answered, and nothing is wrong with the service.
                LOG.infof("The connection of %s closed before its request body was read", uri == null ? "?" : uri.getPath());
                return respond(ProblemType.MALFORMED_BODY, "The connection closed before the request body arrived.", uri,
                        null, null, null);
            }
            if (DatabaseErrors.connectionFailure(t)) {
                String id = UUID.randomUUID().toString();
                LOG.errorf(e, "Database unavailable [errorId=%s]", id);
                return respond(ProblemType.UNAVAILABLE, "The database is unavailable; retry later.", uri, null, null, id);
            }
        }
        return internal(e, uri);
    }

    /** True when the JWT library failed on a verified token's claims (a groups object, say): a 401, not a 500. */
    private static boolean fromTokenParser(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassCastException || t instanceof IllegalArgumentException) {
                for (StackTraceElement el : t.getStackTrace()) {
                    if (el.getClassName().startsWith("io.smallrye.jwt.auth.principal.")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static Response internal(Throwable e, UriInfo uri) {
        String id = UUID.randomUUID().toString();
        LOG.errorf(e, "Unhandled error on %s [errorId=%s]", uri == null ? "?" : uri.getPath(), id);
        return respond(ProblemType.INTERNAL, "An unexpected error occurred; the service log has the details under errorId "
                + id + ".", uri, null, null, id);
    }

    /** Builds the problem response; used by the mappers and by filters that answer directly. */
    public static Response respond(ProblemType type, String detail, UriInfo uri, List<Problem.FieldError> errors,
                                   Map<String, Object> extensions, String errorId) {
        Problem body = new Problem(type.uri(), type.title(), type.status(), detail,
                uri == null ? null : uri.getPath(), errorId, errors, extensions);
        return Response.status(type.status()).type(Problem.MEDIA_TYPE).entity(body).build();
    }

    private static String constraintDetail(String constraint) {
        return switch (constraint) {
            case "uq_plugin_type_name", "uq_pipeline_name" -> "A resource with this name already exists.";
            default -> "The plugin is used by a pipeline.";
        };
    }

    private static String expected(Class<?> target) {
        if (target == null) {
            return "";
        }
        if (target.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object c : target.getEnumConstants()) {
                names.add(c.toString());
            }
            return " (expected one of " + String.join(", ", names) + ")";
        }
        if (target == int.class || target == Integer.class) {
            return " (expected a whole number from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ")";
        }
        if (target == long.class || target == Long.class) {
            return " (expected a whole number from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE + ")";
        }
        if (target == java.math.BigInteger.class) {
            return " (expected a whole number)";
        }
        if (Number.class.isAssignableFrom(target) || target == double.class || target == float.class) {
            return " (expected a number)";
        }
        if (target == Boolean.class || target == boolean.class) {
            return " (expected true or false)";
        }
        if (target == String.class) {
            return " (expected a string)";
        }
        if (java.util.Collection.class.isAssignableFrom(target)) {
            return " (expected an array)";
        }
        if (java.util.Map.class.isAssignableFrom(target) || com.fasterxml.jackson.databind.node.ObjectNode.class == target) {
            return " (expected an object)";
        }
        if (target.isRecord()) {
            // The example comes from the type's OpenAPI schema, so the document and the message agree.
            List<String> fields = new ArrayList<>();
            for (java.lang.reflect.RecordComponent c : target.getRecordComponents()) {
                fields.add(c.getName());
            }
            org.eclipse.microprofile.openapi.annotations.media.Schema schema =
                    target.getAnnotation(org.eclipse.microprofile.openapi.annotations.media.Schema.class);
            String example = schema == null || schema.example().isEmpty() ? "" : ", for example " + schema.example();
            return " (expected an object with the fields " + String.join(", ", fields) + example + ")";
        }
        return "";
    }

    private static String jsonPath(List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    /** {@code create.arg1.config} → {@code config}: strips the Java method and parameter prefix. */
    private static String fieldPath(String path) {
        String[] parts = path.split("\\.");
        int start = 0;
        while (start < parts.length - 1 && (start < 2 && (parts[start].startsWith("arg") || start == 0))) {
            start++;
        }
        return String.join(".", java.util.Arrays.copyOfRange(parts, start, parts.length));
    }

    /**
     * A parser message in plain words: the limits Jackson names by their Java getter
     * ({@code StreamReadConstraints.getMaxNestingDepth()}) are described instead.
     */
    public static String plainJsonMessage(String msg) {
        if (msg == null) {
            return null;
        }
        String m = msg.replaceAll("\\s*\\(?,?\\s*from `[^`]*`\\)?", "");
        if (msg.contains("getMaxNestingDepth")) {
            return "it is nested too deeply" + limit(m);
        }
        if (msg.contains("getMaxNumberLength")) {
            return "a number is too long" + limit(m);
        }
        if (msg.contains("getMaxStringLength")) {
            return "a string is too long" + limit(m);
        }
        if (msg.contains("getMaxNameLength")) {
            return "a field name is too long" + limit(m);
        }
        if (msg.contains("getMaxDocumentLength") || msg.contains("getMaxTokenCount")) {
            return "it is too large";
        }
        return m.replace("StreamReadConstraints", "the parser's limits");
    }

    private static String limit(String m) {
        java.util.regex.Matcher x = java.util.regex.Pattern.compile("maximum allowed \\(?(\\d+)").matcher(m);
        return x.find() ? " (at most " + x.group(1) + ")" : "";
    }

    /** The 415 detail: what the endpoint takes (a meltano.yml import also takes YAML). */
    public static String unsupportedMediaType(UriInfo uri) {
        if (isImport(uri)) {
            return "Send the meltano.yml as application/yaml (or application/x-yaml, text/yaml), or as JSON"
                    + " {\"yaml\": \"...\"} with Content-Type application/json.";
        }
        return "Send the request body as application/json (PATCH also takes application/merge-patch+json).";
    }

    /** True on the meltano.yml import, which takes YAML as well as JSON. */
    private static boolean isImport(UriInfo uri) {
        String path = uri == null ? "" : uri.getPath();
        return path.endsWith("/projects:import") || path.endsWith("/projects%3Aimport") || path.endsWith("/projects/import");
    }

    private static String safeMessage(String message, String fallback) {
        if (message == null || message.isBlank() || message.contains("Exception") || message.contains("java.")) {
            return fallback + ".";
        }
        return message;
    }
}
