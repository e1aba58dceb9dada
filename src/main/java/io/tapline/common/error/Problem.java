package io.tapline.common.error;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;
import java.util.Map;

/**
 * An RFC 9457 {@code application/problem+json} body. {@code type} is a stable URN from
 * {@link ProblemType}; {@code errors} lists field errors for validation problems; extension
 * members (for example {@code activeRunId}) are written at the top level.
 *
 * @param type stable problem type, {@code urn:tapline:problem:<slug>}
 * @param title short summary of the type, the same for every occurrence
 * @param status HTTP status code
 * @param detail human explanation of this occurrence
 * @param instance request path the problem occurred on
 * @param errorId correlation id, also written to the service log (set for 5xx)
 * @param errors per-field errors, or null
 * @param extensions extra top-level members
 */
@io.quarkus.runtime.annotations.RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "instance", "errorId", "errors"})
public record Problem(String type, String title, int status, String detail, String instance, String errorId,
                      List<FieldError> errors, @com.fasterxml.jackson.annotation.JsonIgnore Map<String, Object> extensions) {

    /** Media type of problem responses. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /**
     * One invalid input field.
     *
     * @param field JSON path of the field in the request ({@code config.password}), or a parameter name
     * @param message what is wrong with it
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record FieldError(String field, String message) {
    }

    /** Extension members, flattened into the top-level object. */
    @JsonAnyGetter
    public Map<String, Object> any() {
        return extensions == null ? Map.of() : extensions;
    }
}
