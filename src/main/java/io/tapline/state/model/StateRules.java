package io.tapline.state.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.state.StateService;
import io.tapline.state.json.PythonJson;

import java.util.Map;
import java.util.Objects;

/**
 * Meltano 4.2.2's rules for state values, as pure functions on Jackson trees: the deep merge, the
 * {@code singer_state} validation and Python truthiness (meltano-state.md §1a, §1c, §1e).
 */
public final class StateRules {

    /** The key that wraps the Singer state in a Meltano state object. */
    public static final String SINGER_STATE = "singer_state";

    private StateRules() {
    }

    /**
     * Deep merge of {@code src} onto {@code dest}: Meltano's {@code merge(src, dest)} from
     * {@code meltano.core.utils}, the merge rule of Meltano 4.2.2 (meltano-state.md §1e), but
     * returning a new tree. Neither input is modified, and the result shares no node with them.
     *
     * <p>For each key of {@code src}, in order:
     * <ul>
     *   <li>an object value is merged recursively into {@code dest}'s object under that key (an
     *       empty object is created when the key is missing);</li>
     *   <li>any other value (string, number, boolean, array, null) replaces {@code dest}'s value:
     *       arrays are replaced whole, {@code null} overwrites, and a scalar replaces an
     *       object.</li>
     * </ul>
     * Keys keep {@code dest}'s order; keys only in {@code src} are appended in {@code src}'s order.
     *
     * <p>Type conflicts: an <em>empty</em> object in {@code src} over a non-object in {@code dest}
     * leaves that value unchanged (Python's loop over no keys); a non-empty object there makes
     * Python raise, and this method throws {@link StateConflictException} naming the path.
     *
     * @param src the winning side, e.g. the partial state
     * @param dest the base, e.g. the completed state
     * @return a new object: {@code dest} with {@code src} merged in
     * @throws StateConflictException on a non-empty object over a non-object
     */
    public static ObjectNode merge(ObjectNode src, ObjectNode dest) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dest, "dest");
        ObjectNode result = dest.deepCopy();
        mergeInto(src, result, null);
        return result;
    }

    private static void mergeInto(JsonNode src, ObjectNode dest, Path path) {
        for (Map.Entry<String, JsonNode> entry : src.properties()) {
            String key = entry.getKey();
            JsonNode value = entry.getValue();
            if (!value.isObject()) {
                dest.set(key, value.deepCopy());
                continue;
            }
            JsonNode existing = dest.get(key);
            if (existing == null) {
                dest.set(key, value.deepCopy());
            } else if (existing.isObject()) {
                mergeInto(value, (ObjectNode) existing, new Path(path, key));
            } else if (!value.isEmpty()) {
                throw new StateConflictException(new Path(path, key).toString(), existing.getNodeType());
            }
            // else: an empty object over a scalar, array or null changes nothing
        }
    }

    /**
     * Meltano's {@code StateService.validate_state} (meltano-state.md §1c, §6.14): the value must
     * be a JSON object with the key {@code singer_state} at the top level. The value under the key
     * is not checked ({@code {"singer_state": {}}} and {@code {"singer_state": null}} pass) and
     * extra top-level keys are allowed. A nested {@code singer_state} does not count.
     *
     * <p>Stricter than Meltano in one way: Meltano's {@code "singer_state" in state} also accepts a
     * list containing that string or a string containing it; here only objects pass.
     *
     * @throws InvalidStateException with {@link InvalidStateException#MISSING_SINGER_STATE}
     */
    public static void validate(JsonNode value) {
        if (value == null || !value.isObject() || !value.has(SINGER_STATE)) {
            throw new InvalidStateException(InvalidStateException.MISSING_SINGER_STATE);
        }
    }

    /**
     * Python's {@code bool(value)} for a JSON value: {@code {}}, {@code []}, {@code ""}, {@code 0},
     * {@code 0.0}, {@code -0.0}, {@code false}, {@code null} and a missing value (Java
     * {@code null}) are false, everything else, including {@code NaN}, is true. Meltano writes the
     * tap's state file only when the Singer state is truthy (meltano-state.md §1a).
     */
    public static boolean truthy(JsonNode value) {
        if (value == null) {
            return false;
        }
        switch (value.getNodeType()) {
            case OBJECT:
            case ARRAY:
                return value.size() > 0;
            case STRING:
                return !value.textValue().isEmpty();
            case BOOLEAN:
                return value.booleanValue();
            case NUMBER:
                switch (value.numberType()) {
                    case INT:
                    case LONG:
                        return value.longValue() != 0;
                    case BIG_INTEGER:
                        return value.bigIntegerValue().signum() != 0;
                    case BIG_DECIMAL:
                        return value.decimalValue().signum() != 0;
                    default:
                        return value.doubleValue() != 0.0; // NaN != 0.0, as bool(nan) is True
                }
            case BINARY:
                return binaryLength(value) > 0;
            default:
                return false; // NULL, MISSING
        }
    }

    private static int binaryLength(JsonNode value) {
        try {
            byte[] bytes = value.binaryValue();
            return bytes == null ? 0 : bytes.length;
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    /** A JSON path built only when an error needs it. */
    private record Path(Path parent, String key) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            append(sb);
            return sb.toString();
        }

        private void append(StringBuilder sb) {
            if (parent != null) {
                parent.append(sb);
            }
            if (plain(key)) {
                if (parent != null) {
                    sb.append('.');
                }
                sb.append(key);
            } else {
                sb.append('[');
                PythonJson.appendString(sb, key);
                sb.append(']');
            }
        }

        private static boolean plain(String key) {
            if (key.isEmpty()) {
                return false;
            }
            for (int i = 0; i < key.length(); i++) {
                char c = key.charAt(i);
                if (c < 0x20 || c > 0x7E || c == '.' || c == '[' || c == ']' || c == '"') {
                    return false;
                }
            }
            return true;
        }
    }
}
