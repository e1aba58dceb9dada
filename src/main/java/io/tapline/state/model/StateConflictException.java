package io.tapline.state.model;

import com.fasterxml.jackson.databind.node.JsonNodeType;

/**
 * A deep merge found a non-empty object in the source (the partial or incoming state) where the
 * destination holds a string, number, boolean, array or null. Meltano 4.2.2's {@code merge} raises
 * {@code TypeError} or {@code AttributeError} there and fails the read or the run
 * (meltano-state.md §1e "Type conflicts"); this service reports the JSON path instead.
 */
public final class StateConflictException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final JsonNodeType destinationType;

    StateConflictException(String path, JsonNodeType destinationType) {
        super("Cannot merge an object into " + describe(destinationType) + " at " + path
                + " (Meltano's merge fails here too)");
        this.path = path;
        this.destinationType = destinationType;
    }

    private static String describe(JsonNodeType type) {
        switch (type) {
            case ARRAY:
                return "an array";
            case NULL:
                return "null";
            case STRING:
                return "a string";
            case NUMBER:
                return "a number";
            case BOOLEAN:
                return "a boolean";
            default:
                return "a " + type.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * Where the conflict is, as keys joined with {@code .} from the top of the merged objects, e.g.
     * {@code singer_state.bookmarks.users}. A key that is empty or contains {@code .}, {@code [},
     * {@code ]}, {@code "} or characters outside printable ASCII is written as {@code ["key"]}
     * with JSON escapes instead.
     */
    public String path() {
        return path;
    }

    /** The JSON type found in the destination at {@link #path()}. */
    public JsonNodeType destinationType() {
        return destinationType;
    }
}
