package io.tapline.state.store;

import io.tapline.audit.AuditEvent;
import io.tapline.audit.AuditService;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Names;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemType;
import io.tapline.state.StateService.BeforeWrite;
import io.tapline.state.StateService.Origin;
import io.tapline.state.StateService.Snapshot;
import io.tapline.state.StateService.Source;
import io.tapline.state.StateService.StateChanged;
import io.tapline.state.StateService;
import io.tapline.state.json.PythonJson;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The one guarded write path of the state store ({@link #write}): every change of a state ID,
 * whether a Meltano command of {@link StateService}, a run's checkpoint, a bookmark edit
 * ({@code Bookmarks}) or an import from the file mirror, goes through it.
 *
 * <p>The write takes the state ID's advisory lock for the rest of its transaction
 * ({@link StateRepository#lockAndRead}), reads, computes, stores the new value with version + 1
 * and appends the history row in the same transaction, so concurrent writers never lose an
 * update. Every change that is not a run's checkpoint is also recorded in the audit trail, in that
 * transaction ({@code state.<action>}, target the state ID). A write costs two round trips to the
 * database besides the commit.
 */
@ApplicationScoped
@Transactional
public class StateWriter {

    private final StateRepository repo;
    private final Clock clock;
    private final Event<StateChanged> changed;
    private final Event<BeforeWrite> beforeWrite;
    private final AuditService audit;
    /** With a file mirror every state ID becomes a directory name, so only safe names are accepted. */
    private final boolean fileSafeIds;

    public StateWriter(StateRepository repo, Clock clock, Event<StateChanged> changed, Event<BeforeWrite> beforeWrite,
                       AuditService audit, TaplineConfig config) {
        this.repo = repo;
        this.clock = clock;
        this.changed = changed;
        this.beforeWrite = beforeWrite;
        this.audit = audit;
        this.fileSafeIds = config.state().mirrorDir().isPresent();
    }

    /**
     * What a change makes of a stored state: the texts recorded before and after it, and what the
     * caller returns.
     *
     * @param completedBefore the completed side before, as the history records it; null when nothing was stored
     * @param partialBefore the partial side before; null when nothing was stored
     * @param completedAfter the completed side to store; null clears the state ID
     * @param partialAfter the partial side to store (ignored when clearing)
     * @param listStatus {@link StateService#listStatus} of the new record (ignored when clearing)
     * @param value what the write returns to its caller
     */
    public record Step<R>(String completedBefore, String partialBefore, String completedAfter, String partialAfter,
                   String listStatus, R value) {
    }

    /**
     * The outcome of a guarded write.
     *
     * @param value the change's {@link Step#value}
     * @param version the version now stored: the new one, the old one when nothing changed, 0 when cleared
     * @param at when it was stored (the stored time when nothing changed; null when nothing is stored)
     * @param changed false when the change left the texts as they were (nothing was written)
     */
    public record Written<R>(R value, long version, OffsetDateTime at, boolean changed) {
    }

    /**
     * The guarded write every change goes through: checks the ID, lets the file mirror import an
     * outside change first (unless this transaction already holds the ID's lock), takes the lock and
     * reads what is stored (one round trip), refuses while a run is active (when asked), checks
     * {@code If-Match} (against the state after that import), applies {@code change} to the stored row
     * (null when none), and unless the texts stayed the same stores the result with version + 1, its
     * history row and its audit event (not for runs' checkpoints) in one round trip, and fires
     * {@link StateChanged}.
     *
     * @param ifMatch {@code If-Match} header or null; {@code "0"} means "only if nothing is stored"
     * @param checkActiveRun refuse (409) while a run of the ID is active; false for an operator's edit
     *     means {@code force=true}, recorded in the audit event ({@code force}, and {@code activeRunId}
     *     when a run was active)
     * @param change computes the step from the stored row, or null when the ID has none
     * @param auditDetails extra members of the audit event ({@code from}, {@code stream} ...; never state values)
     * @throws ProblemException 400 for an invalid state ID, 409 while a run is active, 412 for If-Match
     */
    public <R> Written<R> write(String stateId, Origin origin, String ifMatch, boolean checkActiveRun,
                         Function<StateRepository.Row, Step<R>> change, Map<String, ?> auditDetails) {
        if (fileSafeIds) {
            Names.stateIdForFiles("stateId", stateId);
        } else {
            Names.stateId("stateId", stateId);
        }
        if (origin.source() != Source.MELTANO) {
            importOutsideChange(stateId, origin.source());
        }
        // An operator's edit that does not check for an active run was sent with force=true: the
        // audit event says so, and names the run it overrode.
        boolean forced = !checkActiveRun && origin.source() != Source.RUN && origin.source() != Source.MELTANO;
        StateRepository.Locked locked = repo.lockAndRead(stateId, checkActiveRun || forced);
        if (checkActiveRun && locked.activeRunId() != null) {
            throw new ProblemException(ProblemType.RUN_ACTIVE, "Run " + locked.activeRunId() + " of state ID '" + stateId
                    + "' is " + locked.activeRunStatus() + "; its state would overwrite this edit. Wait for it, cancel it,"
                    + " or add force=true.").with("activeRunId", locked.activeRunId().toString());
        }
        StateRepository.Row row = locked.row();
        if (ifMatch != null && ifMatch.trim().equals("*") && row == null) {
            throw new ProblemException(ProblemType.PRECONDITION_FAILED, "If-Match: * was sent but state ID '" + stateId
                    + "' has no stored state.");
        }
        ETags.checkIfMatch(ifMatch, row == null ? 0 : row.version());
        Step<R> step = change.apply(row);
        boolean unchanged = step.completedAfter() == null ? row == null
                : row != null && step.completedAfter().equals(step.completedBefore())
                        && step.partialAfter().equals(step.partialBefore());
        if (unchanged) {
            return new Written<>(step.value(), row == null ? 0 : row.version(), row == null ? null : row.updatedAt(), false);
        }
        long version = Math.max(row == null ? 0 : row.version(), locked.lastVersion()) + 1;
        OffsetDateTime now = OffsetDateTime.now(clock);
        boolean clear = step.completedAfter() == null;
        AuditEvent event = null;
        if (origin.source() != Source.RUN) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("source", origin.source().name());
            details.put("version", version);
            if (clear) {
                details.put("cleared", true);
            }
            if (forced) {
                details.put("force", true);
                if (locked.activeRunId() != null) {
                    details.put("activeRunId", locked.activeRunId().toString());
                }
            }
            details.putAll(auditDetails);
            String verb = origin.source() == Source.ROLLBACK ? "rollback" : origin.action();
            event = audit.event(origin.actor(), "state." + verb, "state", stateId, details);
        }
        repo.store(stateId, step.listStatus(), new StateRepository.Version(version, origin.source().name(),
                origin.action(), origin.actor(), origin.runId(), step.completedBefore(), step.partialBefore(),
                step.completedAfter(), clear ? null : step.partialAfter(), now), event);
        changed.fire(new StateChanged(stateId));
        return new Written<>(step.value(), clear ? 0 : version, now, true);
    }

    /**
     * Lets the file mirror import an outside change of the state ID ({@link BeforeWrite}) unless
     * this transaction already holds the ID's advisory lock. Called before the advisory lock is
     * taken: the mirror takes the ID's lock file and then its advisory lock, as the scan does, so a
     * writer waiting for Meltano's lock file never holds the advisory lock the scan's import waits
     * for. The mirror holds the lock file until the file has been rewritten after the commit, so no
     * Meltano write comes between this look and the file showing the change.
     *
     * @throws ProblemException 503 for an operator's edit while Meltano holds the lock file too long
     */
    public void importOutsideChange(String stateId, Source source) {
        if (fileSafeIds && fileSafe(stateId) && !repo.lockedInTransaction(stateId)) {
            beforeWrite.fire(new BeforeWrite(stateId, source));
        }
    }

    /** True when the state ID can be a mirror directory's name (else no mirror file can exist for it). */
    private static boolean fileSafe(String stateId) {
        try {
            Names.stateIdForFiles("stateId", stateId);
            return true;
        } catch (ProblemException e) {
            return false;
        }
    }

    /**
     * The step of a change computed on trees: parses the stored row into a {@link MeltanoState},
     * applies {@code change}, refuses a record whose partial side cannot be merged over its
     * completed side (409), and writes both sides before and after in
     * {@link PythonJson.Layout#DEFAULT}. The value is the new record ({@link MeltanoState#empty()}
     * when cleared).
     */
    public static Step<MeltanoState> treeStep(String stateId, StateRepository.Row row, UnaryOperator<MeltanoState> change) {
        Snapshot current = row == null ? new Snapshot(stateId, MeltanoState.empty(), 0, null) : StateService.snapshot(row);
        MeltanoState next;
        try {
            next = change.apply(current.state());
            if (next != null) {
                next.merged(); // never store a record whose partial cannot be merged over its completed side
            }
        } catch (StateConflictException e) {
            throw new ProblemException(ProblemType.STATE_CONFLICT, "The state cannot be merged: at "
                    + e.path() + " an object would be merged over a " + e.destinationType().name().toLowerCase()
                    + " (Meltano fails there too). Use set to replace the state instead.").with("path", e.path());
        }
        String cBefore = current.exists() ? PythonJson.write(current.state().completed(), PythonJson.Layout.DEFAULT) : null;
        String pBefore = current.exists() ? PythonJson.write(current.state().partial(), PythonJson.Layout.DEFAULT) : null;
        if (next == null) {
            return new Step<>(cBefore, pBefore, null, null, null, MeltanoState.empty());
        }
        return new Step<>(cBefore, pBefore, PythonJson.write(next.completed(), PythonJson.Layout.DEFAULT),
                PythonJson.write(next.partial(), PythonJson.Layout.DEFAULT), StateService.listStatus(next), next);
    }
}
