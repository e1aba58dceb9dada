package io.tapline.run;

import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;

import java.util.List;
import java.util.Map;

/**
 * What the one terminal write of a run ({@link RunRepository#end}) records. Fields left null keep
 * what the row holds (a reaper knows no exit codes; the executor knows them all).
 *
 * @param status SUCCEEDED, FAILED or CANCELLED
 * @param component the failed component, or null (successes, cancels)
 * @param type the failure type, or null for a success
 * @param reason the readable reason ({@code error_summary}), or null for a success
 * @param exitCodes exit code per component, or null to keep the stored ones
 * @param warnings the run's warnings, or null to keep the stored ones
 * @param logTail the last lines of the run log, or null to keep
 * @param logBytes bytes in the run log, or null to keep
 * @param stages JSON array of the run's stages, or null to keep
 * @param counts the run's final counts, or null to keep
 */
public record RunEnd(RunStatus status, FailedComponent component, FailureType type, String reason,
                     Map<String, Integer> exitCodes, List<String> warnings, String logTail, Long logBytes,
                     String stages, Counts counts) {

    /**
     * A run's final counts.
     *
     * @param streams JSON {@code {"streams": {...}, "states": n, "lines": n}}
     * @param records RECORD messages
     * @param bytes bytes relayed
     * @param stateLines valid state lines from the target, or null to keep
     * @param invalidStateLines invalid ones, or null to keep
     */
    public record Counts(String streams, long records, long bytes, Integer stateLines, Integer invalidStateLines) {
    }

    /** Checks that the status is one a run can end with. */
    public RunEnd {
        if (status == null || !status.isTerminal() || status == RunStatus.SKIPPED) {
            throw new IllegalArgumentException("a run ends SUCCEEDED, FAILED or CANCELLED, not " + status);
        }
    }

    /** An end without details (reaper, release, cancel of a queued run). */
    public static RunEnd of(RunStatus status, FailedComponent component, FailureType type, String reason) {
        return new RunEnd(status, component, type, reason, null, null, null, null, null, null);
    }

    /** Whether a retry may help: the type's, false for successes and cancels. */
    public boolean retryable() {
        return status == RunStatus.FAILED && type != null && type.retryable();
    }

    /**
     * Which row may be ended: a compare-and-set on the current status, and optionally on the
     * owner and on a stale heartbeat.
     *
     * @param from the status the row must have
     * @param owner the owner instance the row must have, or null for any
     * @param heartbeatBefore the row's heartbeat must be older than this, or null for any
     */
    public record Guard(RunStatus from, String owner, java.time.OffsetDateTime heartbeatBefore) {

        /** A QUEUED or RUNNING run, whoever owns it. */
        public static Guard from(RunStatus from) {
            return new Guard(from, null, null);
        }
    }
}
