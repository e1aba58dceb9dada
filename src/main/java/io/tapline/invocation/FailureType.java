package io.tapline.invocation;

import java.util.Locale;

/**
 * What kind of failure ended a run: the catalogue of docs/failures.md. Stored lower-case in
 * {@code pipeline_run.failure_type} and shown as {@code failure.type}; the retry policy retries a
 * failed run only when its failure is {@link #retryable()}.
 */
public enum FailureType {
    /** Missing or disallowed executable, unresolvable reference, undecryptable secret, invalid config or project. */
    CONFIGURATION(false, "configuration error"),
    /** A plugin's {@code pip_url} could not be installed into its virtual environment (pip's error is the reason). */
    INSTALLATION(false, "connector installation failed"),
    /** A connector (extractor, mapper, loader, transform, meltano) exited with a non-zero code. */
    CONNECTOR_EXIT(true, "connector exited with an error"),
    /** The extractor wrote output that is not Singer (a line that is not JSON, or too long), or discovery printed no catalog. */
    CONNECTOR_PROTOCOL(false, "connector broke the Singer protocol"),
    /** The run passed its pipeline's {@code timeoutSeconds}. */
    TIMEOUT(true, "timed out"),
    /** Cancelled by an operator, superseded, or stopped by a service shutdown. */
    CANCELLED(false, "cancelled"),
    /** The acknowledged state (or the run's end) could not be stored: the database was unreachable too long. */
    STATE_STORE(true, "state could not be stored"),
    /** The replica running it stopped heartbeating (crash, network, database lost on that replica). */
    LOST_INSTANCE(true, "service instance lost"),
    /** The machine ran out of a resource: disk full, no memory, too many processes or files. */
    RESOURCE(true, "out of a resource"),
    /** An unexpected error inside the service (a bug): see the service log. */
    INTERNAL(true, "internal error");

    private final boolean retryable;
    private final String words;

    FailureType(boolean retryable, String words) {
        this.retryable = retryable;
        this.words = words;
    }

    /** Lower case, as stored and shown: {@code configuration}, {@code connector_exit}, ... */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether a retry of a run that failed so may succeed; the retry policy follows it. */
    public boolean retryable() {
        return retryable;
    }

    /** The type in words, for the run log and the run page, e.g. "configuration error". */
    public String words() {
        return words;
    }

    /** The type of a stored {@link #id()}, or null for null or an unknown id. */
    public static FailureType of(String id) {
        if (id == null) {
            return null;
        }
        for (FailureType t : values()) {
            if (t.id().equals(id)) {
                return t;
            }
        }
        return null;
    }
}
