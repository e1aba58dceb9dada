package io.tapline.state.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.tapline.state.StateService;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Reads one value out of a stored JSON text without building the tree of the rest: the state API
 * answers a bookmark {@code GET} from the stored {@code completed} text this way, building only
 * the bookmark's own (small) tree.
 *
 * <p>{@link #find} gives exactly what {@code PythonJson.parse(text)} followed by
 * {@code .path(name)} for each name would give, with the root taken as {@code {}} when it is not an
 * object (as {@code StateService} reads a stored side): the whole text is still scanned with
 * {@link PythonJson}'s rules, so an invalid text fails the same way, and of repeated keys the last
 * one counts.
 */
public final class StoredJson {

    private StoredJson() {
    }

    /**
     * The value at {@code path} inside the object {@code text}.
     *
     * @param text a whole JSON document (Python's syntax)
     * @param path one or more object keys, outermost first
     * @return the value (any JSON value, {@code null} included as a {@code NullNode}), or a
     *     {@link MissingNode} when a key is absent or a value on the way is not an object
     * @throws InvalidJsonException as {@link PythonJson#parse(String)}
     */
    public static JsonNode find(String text, String... path) {
        Objects.requireNonNull(text, "text");
        if (path.length == 0) {
            throw new IllegalArgumentException("path is empty");
        }
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            throw new InvalidJsonException("Unexpected UTF-8 BOM (decode using utf-8-sig)", 1, 1, 0, "char", null);
        }
        try (JsonParser p = PythonJson.FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw PythonJson.at("Expecting value", p.currentLocation(), null);
            }
            JsonNode found;
            if (first == JsonToken.START_OBJECT) {
                found = findIn(p, path, 0);
            } else {
                skip(p, first);
                found = MissingNode.getInstance();
            }
            if (p.nextToken() != null) {
                throw PythonJson.at("Extra data", p.currentTokenLocation(), null);
            }
            return found;
        } catch (JsonProcessingException e) {
            throw PythonJson.at(PythonJson.shorten(e.getOriginalMessage()), e.getLocation(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a String source does no I/O
        }
    }

    /** Scans the object whose START_OBJECT is the current token, through its END_OBJECT. */
    private static JsonNode findIn(JsonParser p, String[] path, int level) throws IOException {
        JsonNode found = MissingNode.getInstance();
        String name;
        while ((name = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            if (!name.equals(path[level])) {
                skip(p, t);
            } else if (level == path.length - 1) {
                found = PythonJson.readValue(p, t);
            } else if (t == JsonToken.START_OBJECT) {
                found = findIn(p, path, level + 1);
            } else {
                skip(p, t);
                found = MissingNode.getInstance();
            }
        }
        return found;
    }

    /**
     * Skips the value starting at {@code token}, checking numbers as {@link PythonJson#parse} does
     * (Jackson itself checks the rest of the syntax while skipping).
     */
    private static void skip(JsonParser p, JsonToken token) throws IOException {
        int depth = 0;
        JsonToken t = token;
        while (true) {
            switch (t) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> PythonJson.readValue(p, t);
                default -> {
                }
            }
            if (depth == 0) {
                return;
            }
            t = p.nextToken();
        }
    }
}
