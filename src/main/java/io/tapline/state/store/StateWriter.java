package io.tapline.state.store;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.audit.AuditEvent;
import io.tapline.audit.AuditService;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.VersionMismatchException;
import io.tapline.state.json.PythonJson;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.store.Origin.Source;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The one write path of the state store: every change of a state ID goes through it, whether a
 * Meltano command or a bookmark edit of {@code StateService}, an import, a rollback, a run's
 * checkpoint, or the import of a file Meltano wrote into the shared directory.
 *
 * <p>A change happens in a unit of work ({@link #transaction}): the writer holds each state ID's
 * mirror file through the {@link MirrorWrites} port, runs the work in a transaction of its own
 * (every {@link #write} of the unit joins it), and after the commit lets the mirror write the
 * files, then lets them go. A {@link #write} outside a unit is a unit of one state ID.
 *
 * <p>Each write takes the state ID's advisory lock for the rest of the transaction
 * ({@link StateRepository#lockAndRead}), reads, computes, stores the new value with version + 1
 * and appends the history row in the same transaction, so concurrent writers never lose an
 * update. Every change that is not a run's checkpoint is also recorded in the audit trail, in that
 * transaction ({@code state.<action>}, target the state ID). A write costs two round trips to the
 * database besides the commit.
 */
@ApplicationScoped
public class StateWriter {

    /** The unit of work open on this thread, if any. */
    private static final ThreadLocal<Unit> UNIT = new ThreadLocal<>();

    private final StateRepository repo;
    private final Clock clock;
    private final MirrorWrites mirror;
    private final AuditService audit;
    /** With a file mirror every state ID becomes a directory name, so only safe names are accepted. */
    private final boolean fileSafeIds;

    public StateWriter(StateRepository repo, Clock clock, MirrorWrites mirror, AuditService audit,
                       TaplineConfig config) {
        this.repo = repo;
        this.clock = clock;
        this.mirror = mirror;
        this.audit = audit;
        this.fileSafeIds = config.state().mirrorDir().isPresent();
    }

    /** The state IDs of an open unit of work, and the mirror holds taken for them. */
    private record Unit(Collection<String> stateIds, Map<String, MirrorWrites.Hold> holds) {
    }

    /**
     * What a change makes of a stored state: the texts recorded before and after it, and what the
     * caller returns.
     *
     * @param completedBefore the completed side before, as the history records it; null when nothing was stored
     * @param partialBefore the partial side before; null when nothing was stored
     * @param completedAfter the completed side to store; null clears the state ID
     * @param partialAfter the partial side to store (ignored when clearing)
     * @param listStatus {@link MeltanoState#listStatus} of the new record (ignored when clearing)
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
     * Runs {@code work} as one unit of work on {@code stateIds}: holds each ID's mirror file (in
     * ascending order, so two units cannot wait for each other), starts a transaction, imports
     * under each ID's advisory lock what someone else wrote into its file (a MELTANO version, before
     * anything else), runs {@code work} (whose {@link #write}s of these IDs join the transaction),
     * commits, lets the mirror write the files and lets them go. On an error nothing is stored and
     * the files stay as they were.
     *
     * @param stateIds the state IDs the work may write; IDs that cannot be directory names have no file to hold
     * @param source who writes: an edit is refused while Meltano holds a lock file too long, a run's checkpoint is not
     * @param work the work; it may also write rows of other tables (a run's heartbeat)
     * @return what the work returned
     * @throws IllegalStateException when called inside a transaction the writer did not start, or
     *     inside a unit of work of other state IDs
     */
    public <R> R transaction(Collection<String> stateIds, Source source, Supplier<R> work) {
        return transaction(stateIds, source, Map.of(), work);
    }

    /**
     * As {@link #transaction(Collection, Source, Supplier)}, with the hold of one state ID taken by
     * the caller (the mirror's own look at a file, which reports what it found), closed by the caller.
     */
    public <R> R transaction(String stateId, MirrorWrites.Hold hold, Supplier<R> work) {
        return transaction(List.of(stateId), Source.MELTANO, Map.of(stateId, hold), work);
    }

    private <R> R transaction(Collection<String> stateIds, Source source, Map<String, MirrorWrites.Hold> given,
                              Supplier<R> work) {
        Unit open = UNIT.get();
        if (open != null) {
            if (!open.stateIds().containsAll(stateIds)) {
                throw new IllegalStateException("a unit of work on " + open.stateIds() + " cannot write " + stateIds);
            }
            return work.get();
        }
        if (QuarkusTransaction.isActive()) {
            throw new IllegalStateException("a state change runs in the transaction of StateWriter.transaction,"
                    + " not in the caller's");
        }
        Map<String, MirrorWrites.Hold> holds = new LinkedHashMap<>();
        List<MirrorWrites.Hold> taken = new ArrayList<>();
        try {
            for (String id : new TreeSet<>(stateIds)) {
                MirrorWrites.Hold h = given.get(id);
                if (h == null && fileSafeIds && StateChecks.fileSafe(id)) {
                    h = mirror.hold(id, source);
                    taken.add(h);
                }
                if (h != null) {
                    holds.put(id, h);
                }
            }
            UNIT.set(new Unit(List.copyOf(stateIds), holds));
            R result = QuarkusTransaction.requiringNew().call(() -> {
                holds.forEach(this::importOutsideChange);
                return work.get();
            });
            UNIT.remove();
            holds.values().forEach(MirrorWrites.Hold::committed);
            return result;
        } finally {
            UNIT.remove();
            for (int i = taken.size() - 1; i >= 0; i--) {
                taken.get(i).close();
            }
        }
    }

    /**
     * Under the state ID's advisory lock: stores what someone else wrote into its mirror file, as a
     * MELTANO version, so that the unit's change lands on top of it.
     */
    private void importOutsideChange(String stateId, MirrorWrites.Hold hold) {
        repo.lock(stateId);
        Optional<MirrorWrites.OutsideChange> change = hold.outsideChange();
        if (change.isPresent()) {
            MeltanoState record = change.get().record();
            Written<MeltanoState> w = step(stateId, change.get().origin(), ExpectedVersion.none(), false,
                    row -> treeStep(stateId, row, x -> record), Map.of());
            hold.imported(change.get(), w.version(), w.changed());
        }
    }

    /**
     * The guarded write every change goes through: checks the ID, takes its lock and reads what is
     * stored (one round trip), refuses while a run is active (when asked), checks the expected version,
     * applies {@code change} to the stored row (null when none), and unless the texts stayed the
     * same stores the result with version + 1, its history row and its audit event (not for runs'
     * checkpoints) in one round trip. Joins the open unit of work; outside one, it is a unit of its
     * own ({@link #transaction}), so what someone else wrote into the ID's mirror file is imported
     * first and the expected version is checked against the state after that import.
     *
     * @param expected the version the caller expects ({@link ExpectedVersion#none()} for none);
     *     {@link ExpectedVersion#of of(0)} means "only if nothing is stored", {@link ExpectedVersion#any()}
     *     "only if something is stored"
     * @param checkActiveRun refuse (409) while a run of the ID is active; false for an operator's edit
     *     means {@code force=true}, recorded in the audit event ({@code force}, and {@code activeRunId}
     *     when a run was active)
     * @param change computes the step from the stored row, or null when the ID has none
     * @param auditDetails extra members of the audit event ({@code from}, {@code stream} ...; never state values)
     * @throws DomainException 400 for an invalid state ID, 409 while a run is active, 412 when the expected version is not the stored one
     */
    public <R> Written<R> write(String stateId, Origin origin, ExpectedVersion expected, boolean checkActiveRun,
                                Function<StateRepository.Row, Step<R>> change, Map<String, ?> auditDetails) {
        checkId(stateId);
        return transaction(List.of(stateId), origin.source(),
                () -> step(stateId, origin, expected, checkActiveRun, change, auditDetails));
    }

    private void checkId(String stateId) {
        if (fileSafeIds) {
            StateChecks.stateIdForFiles("stateId", stateId);
        } else {
            StateChecks.stateId("stateId", stateId);
        }
    }

    private <R> Written<R> step(String stateId, Origin origin, ExpectedVersion expected, boolean checkActiveRun,
                                Function<StateRepository.Row, Step<R>> change, Map<String, ?> auditDetails) {
        expected = expected == null ? ExpectedVersion.none() : expected;
        checkId(stateId);
        // An operator's edit that does not check for an active run was sent with force=true: the
        // audit event says so, and names the run it overrode.
        boolean forced = !checkActiveRun && origin.source() != Source.RUN && origin.source() != Source.MELTANO;
        StateRepository.Locked locked = repo.lockAndRead(stateId, checkActiveRun || forced);
        if (checkActiveRun && locked.activeRunId() != null) {
            throw new ConflictException(ConflictException.Reason.RUN_ACTIVE, "Run " + locked.activeRunId() + " of state ID '" + stateId
                    + "' is " + locked.activeRunStatus() + "; its state would overwrite this edit. Wait for it, cancel it,"
                    + " or add force=true.").with("activeRunId", locked.activeRunId().toString());
        }
        StateRepository.Row row = locked.row();
        if (expected.isAny() && row == null) {
            throw new VersionMismatchException("If-Match: * was sent but state ID '" + stateId
                    + "' has no stored state.", null);
        }
        expected.check(row == null ? 0 : row.version());
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
        return new Written<>(step.value(), clear ? 0 : version, now, true);
    }

    /**
     * The step of a change computed on trees: parses the stored row into a {@link MeltanoState},
     * applies {@code change}, refuses a record whose partial side cannot be merged over its
     * completed side (409), and writes both sides before and after in
     * {@link PythonJson.Layout#DEFAULT}. The value is the new record ({@link MeltanoState#empty()}
     * when cleared).
     */
    public static Step<MeltanoState> treeStep(String stateId, StateRepository.Row row, UnaryOperator<MeltanoState> change) {
        Snapshot current = row == null ? Snapshot.none(stateId) : Snapshot.of(row);
        MeltanoState next;
        try {
            next = change.apply(current.state());
            if (next != null) {
                next.merged(); // never store a record whose partial cannot be merged over its completed side
            }
        } catch (StateConflictException e) {
            throw new ConflictException(ConflictException.Reason.STATE_CONFLICT, "The state cannot be merged: at "
                    + e.path() + " an object would be merged over a " + e.destinationType().name().toLowerCase()
                    + " (Meltano fails there too). Use set to replace the state instead.").with("path", e.path());
        }
        String cBefore = current.exists() ? PythonJson.write(current.state().completed(), PythonJson.Layout.DEFAULT) : null;
        String pBefore = current.exists() ? PythonJson.write(current.state().partial(), PythonJson.Layout.DEFAULT) : null;
        if (next == null) {
            return new Step<>(cBefore, pBefore, null, null, null, MeltanoState.empty());
        }
        return new Step<>(cBefore, pBefore, PythonJson.write(next.completed(), PythonJson.Layout.DEFAULT),
                PythonJson.write(next.partial(), PythonJson.Layout.DEFAULT), next.listStatus(), next);
    }
}
