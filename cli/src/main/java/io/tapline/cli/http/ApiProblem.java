package io.tapline.cli.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.CliException;

/**
 * A problem+json answer of the API (docs/problems.md) as the CLI shows it: one line made of its
 * {@code detail}, the fields it names and what to do, with an exit code chosen by status.
 */
public final class ApiProblem extends CliException {

    private final int status;
    private final String type;
    private final JsonNode body;

    ApiProblem(int exitCode, String message, int status, String type, JsonNode body) {
        super(exitCode, message);
        this.status = status;
        this.type = type;
        this.body = body;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The problem type's slug ({@code run-active} for {@code urn:tapline:problem:run-active}), or "" when none. */
    public String type() {
        return type;
    }

    /** The problem body (a missing node when the answer was not JSON). */
    public JsonNode body() {
        return body;
    }

    /** The same problem with another message (a CLI flag named where the API names its parameter). */
    public ApiProblem withMessage(String message) {
        return new ApiProblem(exitCode(), message, status, type, body);
    }
}
