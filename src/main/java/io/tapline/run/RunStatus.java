package io.tapline.run;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lifecycle of a pipeline run. Transitions are guarded in SQL (compare-and-set on the current
 * status, see {@link RunRepository}); {@link #canMoveTo} is the allowed-transition table, and every
 * update of {@code pipeline_run} that changes a status binds its {@code status in (:from)} guard from
 * it ({@link #allowedFrom}), so an illegal transition matches no row and cannot be written.
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

    /**
     * The guard of an update that sets a run's status to {@code next}: the names of the statuses
     * among {@code wanted} from which the table allows {@code next}, for {@code status in (:from)}.
     *
     * @param wanted the statuses the caller expects the run to be in
     * @return the allowed ones, in declaration order; never empty
     * @throws IllegalArgumentException when the table allows {@code next} from none of them
     */
    public static List<String> allowedFrom(RunStatus next, Collection<RunStatus> wanted) {
        List<String> from = wanted.stream().filter(s -> s.canMoveTo(next)).sorted().map(Enum::name).toList();
        if (from.isEmpty()) {
            throw new IllegalArgumentException("transition " + (wanted.size() == 1 ? wanted.iterator().next()
                    : wanted) + " -> " + next + " is not allowed");
        }
        return from;
    }

    /** {@link #allowedFrom(RunStatus, Collection)} of every status: the guard of a move to {@code next} from wherever the table allows it. */
    public static List<String> allowedFrom(RunStatus next) {
        return allowedFrom(next, EnumSet.allOf(RunStatus.class));
    }

    /** The statuses from which the table allows {@code next} (empty for QUEUED and SKIPPED, which a run is inserted with). */
    public static Set<RunStatus> sourcesOf(RunStatus next) {
        Set<RunStatus> out = EnumSet.noneOf(RunStatus.class);
        ALLOWED.forEach((from, to) -> {
            if (to.contains(next)) {
                out.add(from);
            }
        });
        return out;
    }

    /** True for SUCCEEDED, FAILED, CANCELLED and SKIPPED. */
    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
