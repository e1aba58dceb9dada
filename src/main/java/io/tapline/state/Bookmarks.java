package io.tapline.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemType;

/**
 * Bookmark-level edits inside {@code singer_state.bookmarks} (the seed's fetch_bookmark /
 * update_bookmark). The edit is applied to the merged state, which is then stored as a complete
 * state: the merged view changes only at the edited place, and nothing else is disturbed.
 */
final class Bookmarks {

    private Bookmarks() {
    }

    /** Sets {@code bookmarks[stream]} (key null) or {@code bookmarks[stream][key]} to {@code value}. */
    static StateService.Snapshot put(StateService states, String stateId, String stream, String key, JsonNode value,
                                     String actor, String ifMatch, boolean force) {
        return states.write(stateId, StateService.Origin.edit("bookmark", actor), ifMatch, !force, s -> {
            ObjectNode merged = s.merged();
            ObjectNode singer = object(merged, "singer_state");
            ObjectNode bookmarks = object(singer, "bookmarks");
            if (key == null) {
                bookmarks.set(stream, value.deepCopy());
            } else {
                object(bookmarks, stream).set(key, value.deepCopy());
            }
            return new MeltanoState(merged, null);
        }, details("set", stream, key));
    }

    /** Removes {@code bookmarks[stream]} or {@code bookmarks[stream][key]}; 404 when absent. */
    static StateService.Snapshot delete(StateService states, String stateId, String stream, String key,
                                        String actor, String ifMatch, boolean force) {
        return states.write(stateId, StateService.Origin.edit("bookmark", actor), ifMatch, !force, s -> {
            ObjectNode merged = s.merged();
            JsonNode bookmarks = merged.path("singer_state").path("bookmarks");
            JsonNode target = key == null ? bookmarks : bookmarks.path(stream);
            String name = key == null ? stream : key;
            if (!(target instanceof ObjectNode o) || !o.has(name)) {
                throw ProblemException.notFound("Bookmark", stateId + " " + stream + (key == null ? "" : "." + key));
            }
            o.remove(name);
            return new MeltanoState(merged, null);
        }, details("delete", stream, key));
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
            throw new ProblemException(ProblemType.STATE_CONFLICT, "'" + field + "' in the stored state is a "
                    + n.getNodeType().name().toLowerCase() + ", not an object; set the whole state to repair it.");
        }
        return (ObjectNode) n;
    }
}
