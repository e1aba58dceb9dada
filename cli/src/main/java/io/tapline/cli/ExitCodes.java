package io.tapline.cli;

/**
 * The exit codes of {@code tapline}, stable for scripts (docs/cli.md, "Exit codes"). A usage error
 * is picocli's 2, as click's is for Meltano.
 */
public final class ExitCodes {

    /** Done. */
    public static final int OK = 0;
    /** A run (or a connection test, an install) ended FAILED or CANCELLED; also an unexpected error. */
    public static final int FAILED = 1;
    /** Bad arguments or input: a usage error, or the API's 400 (a field or parameter is invalid). */
    public static final int USAGE = 2;
    /** No such pipeline, plugin, run, state ID, ...: the API's 404. */
    public static final int NOT_FOUND = 3;
    /** Conflict or refused: the API's 409, 412, 413, 415, 422, 429, or a question answered no. */
    public static final int CONFLICT = 4;
    /** The service cannot be reached or cannot work now (connection refused, timeout, 503). */
    public static final int UNREACHABLE = 5;
    /** No valid token (401) or a role that does not allow the operation (403). */
    public static final int AUTH = 6;

    private ExitCodes() {
    }
}
