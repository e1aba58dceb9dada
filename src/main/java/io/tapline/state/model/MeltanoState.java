package io.tapline.state.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.state.json.InvalidJsonException;
import io.tapline.state.json.PythonJson;

import java.util.Objects;
import java.util.Optional;

/**
 * One stored state record, Meltano 4.2.2's {@code MeltanoState} (meltano-state.md §1d): the
 * {@code completed} and the {@code partial} side, each a wrapped state object such as
 * {@code {"singer_state": {...}}} (extra top-level keys allowed) or {@code {}}. The state ID is
 * not part of the record; the store keys records by it.
 *
 * <p>Immutable: the constructor and the accessors copy the trees, so neither the caller's nor the
 * returned nodes are shared with the record. A {@code null} side becomes {@code {}}, because
 * Meltano's merge crashes on {@code None} and a writer must never store {@code null}
 * (meltano-state.md §1d, §6.6).
 *
 * <p>{@link #equals(Object)} compares the trees with Jackson's equality, which ignores key order;
 * compare {@link #toStateJson()} when order matters.
 *
 * @param completed the state last written as complete ({@code Payload.STATE}), or {@code {}}
 * @param partial partial state merged on top of it ({@code Payload.INCOMPLETE_STATE}), or {@code {}}
 */
public record MeltanoState(ObjectNode completed, ObjectNode partial) {

    private static final String COMPLETED = "completed";
    private static final String PARTIAL = "partial";

    /** Copies both trees; {@code null} is taken as {@code {}}. */
    public MeltanoState {
        completed = completed == null ? JsonNodeFactory.instance.objectNode() : completed.deepCopy();
        partial = partial == null ? JsonNodeFactory.instance.objectNode() : partial.deepCopy();
    }

    /** The record of an unknown state ID: {@code {"completed": {}, "partial": {}}}. */
    public static MeltanoState empty() {
        return new MeltanoState(null, null);
    }

    /**
     * A stored side's text read as a side: the object it holds, or null (taken as {@code {}} by the
     * constructor) for null text or any other JSON value.
     *
     * @throws InvalidJsonException when the text is not JSON
     */
    public static ObjectNode side(String text) {
        if (text == null) {
            return null;
        }
        JsonNode n = PythonJson.parse(text);
        return n instanceof ObjectNode o ? o : null;
    }

    /**
     * The status a state list shows for this record: {@code empty} when the merged state is
     * {@code {}}, {@code ok} when it has {@code singer_state}, {@code invalid} otherwise or when
     * partial cannot be merged over completed (Meltano's green, yellow, red). Stored with each write.
     */
    public String listStatus() {
        try {
            ObjectNode m = merged();
            return m.isEmpty() ? "empty" : m.has(StateRules.SINGER_STATE) ? "ok" : "invalid";
        } catch (StateConflictException e) {
            return "invalid";
        }
    }

    /** A copy of the completed side (never {@code null}, possibly {@code {}}). */
    @Override
    public ObjectNode completed() {
        return completed.deepCopy();
    }

    /** A copy of the partial side (never {@code null}, possibly {@code {}}). */
    @Override
    public ObjectNode partial() {
        return partial.deepCopy();
    }

    /**
     * Meltano's {@code is_complete()}: {@code bool(completed_state)}, i.e. the completed side is a
     * non-empty object (meltano-state.md §1d).
     */
    public boolean isComplete() {
        return !completed.isEmpty();
    }

    /**
     * The state that the next run and {@code meltano state get} see: {@code merge(partial,
     * completed)} with partial winning ({@code MeltanoState.json_merged}, meltano-state.md §1b,
     * §1e). A new tree; {@code {}} when both sides are empty.
     *
     * @throws StateConflictException where partial has a non-empty object over a non-object in
     *     completed (Meltano fails there too)
     */
    public ObjectNode merged() {
        return StateRules.merge(partial, completed);
    }

    /**
     * The bare Singer state handed to the tap: {@code merged().get("singer_state")}
     * ({@code SingerTap.get_singer_state}, meltano-state.md §1a). Any JSON value, or Java
     * {@code null} when the key is absent (a stored JSON {@code null} is returned as a
     * {@code NullNode}).
     *
     * @throws StateConflictException as {@link #merged()}
     */
    public JsonNode singerState() {
        return merged().get(StateRules.SINGER_STATE);
    }

    /**
     * The content of the tap's {@code --state} file, if Meltano would write one: the Singer state
     * in {@link PythonJson.Layout#INDENT2} when it is {@linkplain StateRules#truthy truthy}, else
     * empty ("No state was found, complete import.", meltano-state.md §1a).
     *
     * @throws StateConflictException as {@link #merged()}
     */
    public Optional<String> tapStateFile() {
        JsonNode singer = singerState();
        return StateRules.truthy(singer) ? Optional.of(PythonJson.write(singer, PythonJson.Layout.INDENT2))
                : Optional.empty();
    }

    /**
     * The record after a <em>complete</em> write ({@code Payload.STATE}: a normal run's state line,
     * {@code meltano state set}), per {@code StateStoreManager.update} (meltano-state.md §1c, §1e):
     * a non-empty {@code incoming} becomes {@code completed} and {@code partial} is reset to
     * {@code {}}. An empty {@code incoming} ({@code {}}) does not count as complete; Meltano then
     * merges it as a partial state, which changes nothing, so this record is returned.
     *
     * <p>The value is not validated; call {@link StateRules#validate(JsonNode)} first where Meltano
     * would.
     *
     * @param incoming the wrapped state, e.g. {@code {"singer_state": {...}}}
     * @return the new record (or this one when {@code incoming} is empty)
     */
    public MeltanoState applyComplete(ObjectNode incoming) {
        Objects.requireNonNull(incoming, "incoming");
        if (incoming.isEmpty()) {
            return this;
        }
        return new MeltanoState(incoming, null);
    }

    /**
     * The record after a <em>partial</em> write ({@code Payload.INCOMPLETE_STATE}: merge-strategy
     * and full-refresh runs, {@code meltano state merge}), per {@code StateStoreManager.update}
     * (meltano-state.md §1c, §1e): {@code partial = merge(incoming, partial)}, deep, the incoming
     * value winning; {@code completed} is kept. On an empty record this stores
     * {@code {completed: {}, partial: incoming}}.
     *
     * @param incoming the wrapped partial state
     * @throws StateConflictException where {@code incoming} has a non-empty object over a
     *     non-object in the stored partial (Meltano fails there too)
     */
    public MeltanoState applyPartial(ObjectNode incoming) {
        Objects.requireNonNull(incoming, "incoming");
        return new MeltanoState(completed, StateRules.merge(incoming, partial));
    }

    /**
     * The bytes Meltano's file and cloud backends store in {@code <state_id>/state.json}:
     * {@code json.dumps({"completed": ..., "partial": ...})} in {@link PythonJson.Layout#DEFAULT},
     * ASCII, no trailing newline ({@code MeltanoState.json}, meltano-state.md §1d).
     */
    public String toStateJson() {
        ObjectNode record = JsonNodeFactory.instance.objectNode();
        record.set(COMPLETED, completed);
        record.set(PARTIAL, partial);
        return PythonJson.write(record, PythonJson.Layout.DEFAULT);
    }

    /**
     * Reads a {@code state.json} record ({@code MeltanoState.from_json}, meltano-state.md §1d). A
     * missing {@code completed} or {@code partial} key is {@code {}}, as in Meltano. Better than
     * Meltano: an explicit {@code null} is also read as {@code {}} (Meltano keeps {@code None} and
     * its merge later crashes), and a side that is neither object nor null is rejected here instead
     * of failing later. Other top-level keys are ignored, as in Meltano.
     *
     * @param json the file content (Python's {@code json.loads} syntax, so {@code NaN} is allowed)
     * @throws InvalidJsonException when the text is not JSON (Meltano: error reading state)
     * @throws InvalidStateException when the JSON is not an object, or a side is not an object or
     *     null
     */
    public static MeltanoState fromStateJson(String json) {
        JsonNode root = PythonJson.parse(json);
        if (!root.isObject()) {
            throw new InvalidStateException("A state.json record must be a JSON object, not "
                    + root.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return new MeltanoState(side(root, COMPLETED), side(root, PARTIAL));
    }

    private static ObjectNode side(JsonNode root, String key) {
        JsonNode value = root.get(key);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw new InvalidStateException("\"" + key + "\" in a state.json record must be an object or null, not "
                    + value.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return (ObjectNode) value;
    }
}
