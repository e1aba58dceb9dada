package io.tapline.run;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Lifecycle of a pipeline run. Transitions are guarded in SQL (compare-and-set on the current
 * status, see {@link RunRepository}); {@link #canMoveTo} is the allowed-transition table.
 * <pre>
 * QUEUED  -> RUNNING | CANCELLED | FAILED
 * RUNNING -> SUCCEEDED | FAILED | CANCELLED
 * SKIPPED, SUCCEEDED, FAILED, CANCELLED: terminal
 * </pre>
 */
public enum RunStatus {
    /** Claimed a slot for its state ID, waiting for a runner (or for its retry time). */
    QUEUED,
    /** Processes are running on the owner instance. */
    RUNNING,
    /** Every component exited 0. */
    SUCCEEDED,
    /** A component failed, timed out, or the owner stopped heartbeating. */
    FAILED,
    /** Cancelled by an operator or by a service shutdown. */
    CANCELLED,
    /** A schedule tick that found the pipeline already running; never executed. */
    SKIPPED;

    /** Statuses a run never leaves. */
    public static final Set<RunStatus> TERMINAL = EnumSet.of(SUCCEEDED, FAILED, CANCELLED, SKIPPED);
    /** Statuses that hold the state ID's single active slot. */
    public static final Set<RunStatus> ACTIVE = EnumSet.of(QUEUED, RUNNING);

    private static final Map<RunStatus, Set<RunStatus>> ALLOWED = Map.of(
            QUEUED, EnumSet.of(RUNNING, CANCELLED, FAILED),
            RUNNING, EnumSet.of(SUCCEEDED, FAILED, CANCELLED),
            SUCCEEDED, EnumSet.noneOf(RunStatus.class),
            FAILED, EnumSet.noneOf(RunStatus.class),
            CANCELLED, EnumSet.noneOf(RunStatus.class),
            SKIPPED, EnumSet.noneOf(RunStatus.class));

    /** True when a run may move from this status to {@code next}. */
    public boolean canMoveTo(RunStatus next) {
        return ALLOWED.get(this).contains(next);
    }

    /** True for SUCCEEDED, FAILED, CANCELLED and SKIPPED. */
    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
