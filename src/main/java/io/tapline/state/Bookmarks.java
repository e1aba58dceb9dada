package io.tapline.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.NotFoundException;
import io.tapline.state.json.PythonJson;
import io.tapline.state.json.StoredJson;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.model.StateRules;
import io.tapline.state.store.Origin;
import io.tapline.state.store.Snapshot;
import io.tapline.state.store.StateRepository;
import io.tapline.state.store.StateWriter;

import java.util.Optional;

/**
 * Bookmark-level edits inside {@code singer_state.bookmarks} (the seed's fetch_bookmark /
 * update_bookmark). The edit is applied to the merged state, which is then stored as a complete
 * state: the merged view changes only at the edited place, and nothing else is disturbed.
 */
public final class Bookmarks {

    private Bookmarks() {
    }

    /** The text of an empty side, as stored. */
    private static final String EMPTY = "{}";

    /**
     * A bookmark, or the state after an edit, as the API prints it.
     *
     * @param version the state's version (the ETag)
     * @param json the value in {@link PythonJson.Layout#COMPACT}, without the trailing newline
     */
    public record Printed(long version, String json) {
    }

    /**
     * {@code bookmarks[stream]} (key null) or {@code bookmarks[stream][key]} of the merged state
     * stored in {@code row}; empty when there is none. When the partial side is empty (the usual
     * case: runs and edits store complete states) the merged state is the completed side, and only
     * the bookmark's own tree is built from its text ({@link StoredJson}).
     *
     * @throws StateConflictException when the partial side cannot be merged over the completed one
     */
    static Optional<Printed> read(Optional<StateRepository.Sides> row, String stream, String key) {
        if (row.isEmpty()) {
            return Optional.empty();
        }
        StateRepository.Sides r = row.get();
        JsonNode node;
        if (EMPTY.equals(r.partial())) {
            node = key == null ? StoredJson.find(r.completed(), StateRules.SINGER_STATE, "bookmarks", stream)
                    : StoredJson.find(r.completed(), StateRules.SINGER_STATE, "bookmarks", stream, key);
        } else {
            node = new MeltanoState(MeltanoState.side(r.completed()), MeltanoState.side(r.partial())).merged()
                    .path(StateRules.SINGER_STATE).path("bookmarks").path(stream);
            if (key != null) {
                node = node.path(key);
            }
        }
        return node.isMissingNode() ? Optional.empty()
                : Optional.of(new Printed(r.version(), PythonJson.write(node, PythonJson.Layout.COMPACT)));
    }

    /**
     * Sets {@code bookmarks[stream]} (key null) or {@code bookmarks[stream][key]} to {@code value}
     * and returns the merged state after it. When the partial side is empty (or nothing is
     * stored), the completed side is parsed once and edited in place: the texts written are those
     * {@link StateWriter#treeStep} would write, with one tree instead of several copies.
     */
    static Printed put(StateWriter writer, String stateId, String stream, String key, JsonNode value,
                       String actor, ExpectedVersion expected, boolean force) {
        StateWriter.Written<String> w = writer.write(stateId, Origin.edit("bookmark", actor), expected,
                !force, row -> {
                    JsonNode stored = row == null ? JsonNodeFactory.instance.objectNode()
                            : EMPTY.equals(row.partial()) ? PythonJson.parse(row.completed()) : null;
                    if (!(stored instanceof ObjectNode tree)) {
                        return printed(StateWriter.treeStep(stateId, row, s -> {
                            ObjectNode merged = s.merged();
                            edit(merged, stream, key, value);
                            return new MeltanoState(merged, null);
                        }));
                    }
                    String before = row == null ? null : PythonJson.write(tree, PythonJson.Layout.DEFAULT);
                    edit(tree, stream, key, value);
                    return new StateWriter.Step<>(before, row == null ? null : EMPTY,
                            PythonJson.write(tree, PythonJson.Layout.DEFAULT), EMPTY, "ok",
                            PythonJson.write(tree, PythonJson.Layout.COMPACT));
                }, details("set", stream, key));
        return new Printed(w.version(), w.value());
    }

    /**
     * Sets the bookmark in {@code merged}, in place, creating {@code singer_state} and
     * {@code bookmarks} (and the stream's object, for a key) where absent or null.
     *
     * @throws DomainException 409 when one of them is neither an object nor null
     */
    private static void edit(ObjectNode merged, String stream, String key, JsonNode value) {
        ObjectNode bookmarks = object(object(merged, StateRules.SINGER_STATE), "bookmarks");
        if (key == null) {
            bookmarks.set(stream, value);
        } else {
            object(bookmarks, stream).set(key, value);
        }
    }

    /** A tree step whose value is the new record's merged state, printed. */
    private static StateWriter.Step<String> printed(StateWriter.Step<MeltanoState> s) {
        return new StateWriter.Step<>(s.completedBefore(), s.partialBefore(), s.completedAfter(), s.partialAfter(),
                s.listStatus(), PythonJson.write(s.value().merged(), PythonJson.Layout.COMPACT));
    }

    /**
     * Removes {@code bookmarks[stream]} or {@code bookmarks[stream][key]} of the merged state and
     * stores the result as a complete state, through the same write as {@link #put}.
     *
     * @throws DomainException 404 when absent
     */
    static Snapshot delete(StateWriter writer, String stateId, String stream, String key, String actor,
                           ExpectedVersion expected, boolean force) {
        StateWriter.Written<MeltanoState> w = writer.write(stateId, Origin.edit("bookmark", actor), expected, !force,
                row -> StateWriter.treeStep(stateId, row, s -> {
                    ObjectNode merged = s.merged();
                    JsonNode bookmarks = merged.path("singer_state").path("bookmarks");
                    JsonNode target = key == null ? bookmarks : bookmarks.path(stream);
                    String name = key == null ? stream : key;
                    if (!(target instanceof ObjectNode o) || !o.has(name)) {
                        throw new NotFoundException("Bookmark", stateId + " " + stream
                                + (key == null ? "" : "." + key));
                    }
                    o.remove(name);
                    return new MeltanoState(merged, null);
                }), details("delete", stream, key));
        return new Snapshot(stateId, w.value(), w.version(), w.at());
    }

    /** Audit members of a bookmark edit: the operation, the stream and the key (never the value). */
    private static java.util.Map<String, Object> details(String op, String stream, String key) {
        java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
        d.put("bookmark", op);
        d.put("stream", stream);
        if (key != null) {
            d.put("key", key);
        }
        return d;
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return parent.putObject(field);
        }
        if (!n.isObject()) {
            throw new ConflictException(ConflictException.Reason.STATE_CONFLICT, "'" + field
                    + "' in the stored state is a "
                    + n.getNodeType().name().toLowerCase() + ", not an object; set the whole state to repair it.");
        }
        return (ObjectNode) n;
    }
}
