package io.tapline.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.audit.AuditService;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.MalformedInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.error.Problem;
import io.tapline.state.json.InvalidJsonException;
import io.tapline.state.json.PythonJson;
import io.tapline.state.json.PythonUtf8;
import io.tapline.state.mirror.StateMirror;
import io.tapline.state.model.InvalidStateException;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.model.StateRules;
import io.tapline.state.store.Origin;
import io.tapline.state.store.Origin.Source;
import io.tapline.state.store.Snapshot;
import io.tapline.state.store.StateChecks;
import io.tapline.state.store.StateRepository;
import io.tapline.state.store.StateWriter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The Singer state store: Meltano's {@code state get/set/merge/copy/move/clear/export/import}
 * semantics (meltano-state.md §1c-§1e, §2) on PostgreSQL, plus what Meltano lacks: a version per
 * change with the full value before and after, rollback, bookmark-level edits, ETags, and a refusal
 * to edit a state ID while one of its runs is active (409 unless forced).
 *
 * <p>Every change goes through the one write path, {@link StateWriter}: under the state ID's
 * advisory lock, with version + 1, the history row and (except for runs' checkpoints) the audit
 * event, in one transaction of the writer's, so concurrent writers never lose an update; a change
 * of several state IDs (copy, move, clear --all, import) is one unit of work
 * ({@link StateWriter#transaction}). Reads run in the caller's transaction, if any.
 */
@ApplicationScoped
public class StateService {

    private final StateRepository repo;
    private final StateWriter writer;
    private final StateMirror mirror;
    private final AuditService audit;

    public StateService(StateRepository repo, StateWriter writer, StateMirror mirror, AuditService audit) {
        this.audit = audit;
        this.repo = repo;
        this.writer = writer;
        this.mirror = mirror;
    }

    /** The stored state of an ID (empty record, version 0, when unknown). */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Snapshot get(String stateId) {
        return repo.find(stateId).map(Snapshot::of).orElseGet(() -> Snapshot.none(stateId));
    }

    /**
     * The stored row of an ID, for a read that prints it ({@code api.StateBody}), after an outside
     * change of its mirror file has been imported ({@link StateMirror#refresh}); a row larger than
     * {@code largeBytes} (completed plus partial text) is read only after {@code beforeLarge} has run,
     * which may refuse by throwing ({@link StateRepository#find(String, long, Runnable)}).
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Optional<StateRepository.Row> read(String stateId, long largeBytes, Runnable beforeLarge) {
        mirror.refresh(stateId);
        return repo.find(stateId, largeBytes, beforeLarge);
    }

    /**
     * A stream's bookmark ({@code key} null) or one key of it in the merged state of an ID, with
     * the state's version: one statement, and only the bookmark's own JSON tree is built (see
     * {@link Bookmarks#read}), after an outside change of its mirror file has been imported
     * ({@link StateMirror#refresh}). Empty when the ID, the bookmark or the key does not exist.
     *
     * A state larger than {@code largeBytes} is read only after {@code beforeLarge} has run, which may
     * refuse by throwing.
     *
     * @throws StateConflictException when the stored partial side cannot be merged over the completed one
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Optional<Bookmarks.Printed> bookmark(String stateId, String stream, String key, long largeBytes,
                                         Runnable beforeLarge) {
        mirror.refresh(stateId);
        return Bookmarks.read(repo.findSides(stateId, largeBytes, beforeLarge), stream, key);
    }

    /**
     * Sets {@code bookmarks[stream]} (key null) or {@code bookmarks[stream][key]} of the merged
     * state to {@code value}, nothing else changing ({@link Bookmarks#put}).
     *
     * @return the merged state after the edit, printed, with its version
     * @throws DomainException 409 when {@code singer_state} or {@code bookmarks} is not an object,
     *     while a run is active (unless {@code force}), or 412 for If-Match
     */
    public Bookmarks.Printed putBookmark(String stateId, String stream, String key, JsonNode value, String actor,
                                         ExpectedVersion expected, boolean force) {
        return Bookmarks.put(writer, stateId, stream, key, value, actor, expected, force);
    }

    /**
     * Removes {@code bookmarks[stream]} (key null) or {@code bookmarks[stream][key]} of the merged
     * state ({@link Bookmarks#delete}).
     *
     * @throws DomainException 404 when there is no such bookmark, 409 while a run is active
     *     (unless {@code force}), 412 for If-Match
     */
    public Snapshot deleteBookmark(String stateId, String stream, String key, String actor, ExpectedVersion expected,
                                   boolean force) {
        return Bookmarks.delete(writer, stateId, stream, key, actor, expected, force);
    }

    /**
     * A run's unit of work on its state ID ({@link StateWriter#transaction}): {@code work} (the
     * heartbeat, {@link #applyFromRun} or {@link #write}, the run row) in one transaction, the
     * mirror file written after the commit.
     */
    public <R> R runTransaction(String stateId, Supplier<R> work) {
        return writer.transaction(List.of(stateId), Source.RUN, work);
    }

    /**
     * Applies {@code change} to the state of an ID under its lock and records the change.
     *
     * @param expected the version the caller expects ({@link ExpectedVersion#none()} for none);
     *     {@link ExpectedVersion#of of(0)} means "only if nothing is stored"
     * @param checkActiveRun refuse (409) while a run of the ID is active
     * @param change computes the new record from the current one; returning null clears the ID
     * @return the new snapshot (unchanged, without a new version, when the record did not change)
     */
    public Snapshot write(String stateId, Origin origin, ExpectedVersion expected, boolean checkActiveRun,
                          UnaryOperator<MeltanoState> change) {
        return write(stateId, origin, expected, checkActiveRun, change, Map.of());
    }

    /**
     * As {@link #write(String, Origin, ExpectedVersion, boolean, UnaryOperator)}, with extra members for the
     * audit event ({@code from}, {@code to}, {@code stream} ...; never state values).
     */
    public Snapshot write(String stateId, Origin origin, ExpectedVersion expected, boolean checkActiveRun,
                          UnaryOperator<MeltanoState> change, Map<String, ?> auditDetails) {
        StateWriter.Written<MeltanoState> w = writer.write(stateId, origin, expected, checkActiveRun,
                row -> StateWriter.treeStep(stateId, row, change), auditDetails);
        return new Snapshot(stateId, w.value(), w.version(), w.at());
    }

    /**
     * {@code meltano state set}: a complete write (completed = input, partial = {}).
     *
     * @param body the wrapped state as JSON text (Python syntax: NaN allowed)
     * @param validate require a top-level {@code singer_state} (false = {@code --no-validate})
     * @throws DomainException 400 for invalid JSON or a missing {@code singer_state}, 409, 412
     */
    public Snapshot set(String stateId, String body, boolean validate, String actor, ExpectedVersion expected, boolean force) {
        ObjectNode value = parseWrapped(body, validate);
        return write(stateId, Origin.edit("set", actor), expected, !force, s -> s.applyComplete(value));
    }

    /**
     * {@code meltano state merge}: a partial write (deep-merged into partial; completed kept).
     * Always validated, as in Meltano.
     */
    public Snapshot merge(String stateId, String body, String actor, ExpectedVersion expected, boolean force) {
        ObjectNode value = parseWrapped(body, true);
        return write(stateId, Origin.edit("merge", actor), expected, !force, s -> s.applyPartial(value));
    }

    /** {@code meltano state merge --from-state-id SRC DST}: the merged state of SRC merged into DST. */
    public Snapshot mergeFrom(String source, String stateId, String actor, boolean force) {
        ObjectNode value = mergedOrFail(source);
        return write(stateId, Origin.edit("merge", actor), ExpectedVersion.none(), !force, s -> s.applyPartial(value),
                Map.of("from", source));
    }

    /**
     * {@code meltano state copy}: DST becomes a complete state equal to SRC's merged state.
     *
     * @throws DomainException 400 when SRC has no {@code singer_state} (Meltano fails validation)
     */
    public Snapshot copy(String source, String target, String actor, boolean force) {
        checkPair(source, target);
        return writer.transaction(List.of(source, target), Source.STATE_EDIT,
                () -> copied(source, target, actor, force));
    }

    /** {@code meltano state move}: copy, then clear SRC, in one unit of work. */
    public Snapshot move(String source, String target, String actor, boolean force) {
        if (source.equals(target)) {
            throw InvalidInputException.field("to", "must differ from the source state ID");
        }
        checkPair(source, target);
        return writer.transaction(List.of(source, target), Source.STATE_EDIT, () -> {
            Snapshot s = copied(source, target, actor, force);
            write(source, Origin.edit("move", actor), ExpectedVersion.none(), !force, x -> null, Map.of("to", target));
            return s;
        });
    }

    /** The copy inside its unit of work: reads SRC's merged state under both IDs' mirror holds. */
    private Snapshot copied(String source, String target, String actor, boolean force) {
        ObjectNode value = mergedOrFail(source);
        return write(target, Origin.edit("copy", actor), ExpectedVersion.none(), !force, s -> new MeltanoState(value, null),
                Map.of("from", source));
    }

    /** {@code meltano state clear ID}: deletes the state (history is kept, so it can be rolled back). */
    public Snapshot clear(String stateId, String actor, ExpectedVersion expected, boolean force) {
        return write(stateId, Origin.edit("clear", actor), expected, !force, s -> null);
    }

    /**
     * {@code meltano state clear --all}.
     *
     * @return how many state IDs were cleared
     */
    public int clearAll(String actor, boolean force) {
        List<String> ids = repo.allIds();
        return writer.transaction(ids, Source.STATE_EDIT, () -> {
            int n = 0;
            for (String id : ids) {
                if (write(id, Origin.edit("clear", actor), ExpectedVersion.none(), !force, s -> null).version() == 0) {
                    n++;
                }
            }
            audit.record(actor, "state.clear-all", "state", "*", Map.of("cleared", n));
            return n;
        });
    }

    /**
     * Restores the value a state ID had right after {@code version}, recorded as a ROLLBACK.
     *
     * @throws DomainException 404 when the ID has no such version
     */
    public Snapshot rollback(String stateId, long version, String actor, ExpectedVersion expected, boolean force) {
        StateRepository.Version v = repo.version(stateId, version).orElseThrow(() -> new NotFoundException(
                "State ID '" + stateId + "' has no version " + version + "."));
        MeltanoState target = v.completedAfter() == null ? null
                : new MeltanoState(MeltanoState.side(v.completedAfter()), MeltanoState.side(v.partialAfter()));
        return write(stateId, new Origin(Source.ROLLBACK, "rollback to " + version, actor, null), expected, !force,
                s -> target, Map.of("toVersion", version));
    }

    /** History of a state ID, newest first. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<StateRepository.Version> history(String stateId, Long beforeVersion, int limit) {
        return repo.history(stateId, beforeVersion, limit);
    }

    /** State IDs matching a glob, ascending, as in {@code meltano state list --pattern}. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<StateRepository.Listed> list(String glob, String after, int limit) {
        String regex = glob == null || glob.isEmpty() ? null : globToRegex(glob);
        try {
            return repo.list(regex, after, limit);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof java.sql.SQLException s && "2201B".equals(s.getSQLState())) {
                    throw InvalidInputException.field("pattern", "is not a valid glob (check the [...] ranges)");
                }
            }
            throw e;
        }
    }

    /**
     * {@code meltano state export}: {@code {"<id>": {"completed": c, "partial": p}, ...}}, compact.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public String export() {
        java.io.StringWriter out = new java.io.StringWriter();
        try {
            export(out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * Writes the export to {@code out} one state ID at a time, so memory stays bounded by the
     * largest state rather than the sum of all (the same text as {@link #export()}).
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public void export(java.io.Writer out) throws java.io.IOException {
        out.write('{');
        boolean first = true;
        for (String id : repo.allIds()) {
            Optional<StateRepository.Row> row = repo.find(id);
            if (row.isEmpty()) {
                continue;
            }
            ObjectNode rec = JsonNodeFactory.instance.objectNode();
            rec.set("completed", MeltanoState.side(row.get().completed()));
            rec.set("partial", MeltanoState.side(row.get().partial()));
            out.write(first ? "" : ",");
            out.write(PythonJson.write(JsonNodeFactory.instance.textNode(id), PythonJson.Layout.COMPACT));
            out.write(':');
            out.write(PythonJson.write(rec, PythonJson.Layout.COMPACT));
            first = false;
        }
        out.write('}');
    }

    /**
     * {@code meltano state import}: overwrites each listed ID with its completed/partial record (no
     * merge, no validation, as Meltano), in one transaction, each recorded as IMPORT.
     *
     * @return the number of IDs written
     * @throws DomainException 400 when the body is not an object of records
     */
    public int importAll(String body, String actor, boolean force) {
        JsonNode root = parse(body);
        if (!root.isObject()) {
            throw new MalformedInputException("The import must be a JSON object of"
                    + " {\"<state ID>\": {\"completed\": {...}, \"partial\": {...}}}, as `meltano state export` writes.");
        }
        Map<String, MeltanoState> records = new LinkedHashMap<>();
        List<Problem.FieldError> errors = new ArrayList<>();
        root.fields().forEachRemaining(e -> {
            try {
                StateChecks.stateId(e.getKey(), e.getKey());
                JsonNode rec = e.getValue();
                if (!rec.isObject()) {
                    throw new InvalidStateException("must be an object with completed and partial");
                }
                if (!rec.has("completed") && !rec.has("partial")) {
                    throw new InvalidStateException("has neither \"completed\" nor \"partial\"; an import takes"
                            + " the `meltano state export` shape {\"completed\": {...}, \"partial\": {...}} (use PUT"
                            + " /api/v1/states/{id} to set a wrapped state)");
                }
                JsonNode c = rec.get("completed");
                JsonNode p = rec.get("partial");
                if ((c != null && !c.isNull() && !c.isObject()) || (p != null && !p.isNull() && !p.isObject())) {
                    throw new InvalidStateException("completed and partial must be objects or null");
                }
                MeltanoState record = new MeltanoState(c instanceof ObjectNode co ? co : null,
                        p instanceof ObjectNode po ? po : null);
                record.merged();
                records.put(e.getKey(), record);
            } catch (StateConflictException ex) {
                errors.add(new Problem.FieldError(e.getKey(), "its partial state cannot be merged over its completed"
                        + " state at " + ex.path()));
            } catch (InvalidStateException | InvalidInputException ex) {
                errors.add(new Problem.FieldError(e.getKey(), ex.getMessage()));
            }
        });
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors.size() + " state record(s) are invalid; nothing"
                    + " was imported.", errors);
        }
        return writer.transaction(records.keySet(), Source.IMPORT, () -> {
            records.forEach((id, rec) -> write(id, new Origin(Source.IMPORT, "import", actor, null), ExpectedVersion.none(), !force,
                    s -> rec));
            return records.size();
        });
    }

    /**
     * Applies a state line acknowledged by a run's target (or the final commit of an ON_SUCCESS run).
     *
     * @param complete true for a complete write (STATE payload), false for a partial merge
     */
    public Snapshot applyFromRun(String stateId, UUID runId, ObjectNode wrapped, boolean complete) {
        return write(stateId, new Origin(Source.RUN, complete ? "checkpoint" : "checkpoint (merge)", "run", runId), ExpectedVersion.none(),
                false, s -> complete ? s.applyComplete(wrapped) : s.applyPartial(wrapped));
    }

    /** Parses a wrapped state body with Python's JSON rules (400 on any problem). */
    public static ObjectNode parseWrapped(String body, boolean validate) {
        JsonNode value = parse(body);
        if (validate) {
            try {
                StateRules.validate(value);
            } catch (InvalidStateException e) {
                throw new InvalidInputException(e.getMessage(),
                        List.of(new Problem.FieldError("singer_state", "is required at the top level")));
            }
        }
        if (!value.isObject()) {
            throw new MalformedInputException("A state must be a JSON object.");
        }
        return (ObjectNode) value;
    }

    /** Parses JSON text with Python's rules (NaN allowed, duplicate keys: last wins); 400 on error. */
    /**
     * A request body's bytes as text, decoded strictly as UTF-8 ({@link PythonUtf8#decodeStrict}): an
     * ill-formed byte is refused rather than stored as U+FFFD in a bookmark.
     *
     * @return the text, or null when there is no body
     * @throws DomainException 400 malformed-body naming the first ill-formed byte
     */
    public static String text(byte[] body) {
        if (body == null) {
            return null;
        }
        try {
            return PythonUtf8.decodeStrict(body, true);
        } catch (InvalidJsonException e) {
            throw new MalformedInputException("The body is not valid UTF-8: "
                    + e.getMessage() + ".");
        }
    }

    public static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            throw new MalformedInputException("Invalid JSON provided: the body is empty.");
        }
        try {
            return PythonJson.parse(body);
        } catch (InvalidJsonException e) {
            throw new MalformedInputException("Invalid JSON provided: "
                    + io.tapline.common.error.ProblemMappers.plainJsonMessage(e.getMessage()), e);
        }
    }

    /** Converts a {@code meltano state list --pattern} glob to an anchored POSIX regular expression. */
    public static String globToRegex(String glob) {
        StringBuilder re = new StringBuilder("^");
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                case '[' -> {
                    int end = glob.indexOf(']', i + 2);
                    if (end < 0) {
                        re.append("\\[");
                    } else {
                        String set = glob.substring(i + 1, end).replace("\\", "\\\\");
                        re.append('[').append(set.startsWith("!") ? "^" + set.substring(1) : set).append(']');
                        i = end;
                    }
                }
                default -> {
                    if ("\\.^$|+(){}".indexOf(c) >= 0) {
                        re.append('\\');
                    }
                    re.append(c);
                }
            }
        }
        return re.append('$').toString();
    }

    /** Checks the two state IDs of a copy or move, each named by its parameter. */
    private static void checkPair(String source, String target) {
        StateChecks.stateId("stateId", source);
        StateChecks.stateId("to", target);
    }

    private ObjectNode mergedOrFail(String source) {
        Snapshot s = get(source);
        ObjectNode merged;
        try {
            merged = s.state().merged();
        } catch (StateConflictException e) {
            throw new ConflictException(ConflictException.Reason.STATE_CONFLICT, "The stored state of '" + source
                    + "' cannot be merged at " + e.path() + ".");
        }
        if (!merged.has("singer_state")) {
            throw new InvalidInputException("State ID '" + source + "' has no state with a top-level"
                    + " singer_state (Meltano fails the same way).",
                    List.of(new Problem.FieldError("source", "has no stored singer_state")));
        }
        return merged;
    }
}
