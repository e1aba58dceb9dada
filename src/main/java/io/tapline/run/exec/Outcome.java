package io.tapline.run.exec;

import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.RunFailure;
import io.tapline.run.RunStatus;

/**
 * How a run (or one of its steps) ended, as {@link OutcomeClassifier} decided it.
 *
 * @param status SUCCEEDED, FAILED or CANCELLED
 * @param component the failed component, or null (successes, cancels)
 * @param type the failure type, or null for a success
 * @param reason readable reason, or null for a success
 */
record Outcome(RunStatus status, FailedComponent component, FailureType type, String reason) {

    /** A success. */
    static final Outcome SUCCEEDED = new Outcome(RunStatus.SUCCEEDED, null, null, null);

    /** A failure. */
    static Outcome failed(FailedComponent component, FailureType type, String reason) {
        return new Outcome(RunStatus.FAILED, component, type, reason);
    }

    /** The failure that stopped a run early ({@link RunFailure}). */
    static Outcome of(RunFailure f) {
        return failed(f.component, f.type, f.getMessage());
    }

    /** True for SUCCEEDED. */
    boolean succeeded() {
        return status == RunStatus.SUCCEEDED;
    }
}
