package io.tapline.cli;

/**
 * An error the user can act on: {@code tapline} prints {@link #getMessage()} as one line on stderr
 * (no stack trace) and exits with {@link #exitCode()} ({@link ExitCodes}).
 */
public class CliException extends RuntimeException {

    private final int exitCode;

    /**
     * @param exitCode one of {@link ExitCodes}
     * @param message one sentence saying what went wrong and what to do
     */
    public CliException(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    /** The process exit code. */
    public int exitCode() {
        return exitCode;
    }

    /** A usage error (exit 2). */
    public static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }
}
