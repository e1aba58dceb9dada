package io.tapline.common.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversions between JSON text kept in database columns and Jackson trees. Text in the database
 * was written by this service, so a parse failure here is a bug, reported as
 * {@link IllegalStateException}.
 */
public final class Jsons {

    /** A plain mapper: insertion order kept, big numbers exact. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    /** Like {@link #MAPPER}, but also reads Python's bare NaN, Infinity and -Infinity. */
    public static final ObjectMapper LENIENT = MAPPER.copy()
            .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());

    private Jsons() {
    }

    /** Parses stored JSON text; null stays null. */
    public static JsonNode read(String text) {
        if (text == null) {
            return null;
        }
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Stored JSON is not parseable", e);
        }
    }

    /** Parses a stored JSON object ({@code {}} when null). */
    public static ObjectNode readObject(String text) {
        JsonNode n = read(text);
        return n instanceof ObjectNode o ? o : MAPPER.createObjectNode();
    }

    /** Parses a stored JSON array of strings (empty when null). */
    public static List<String> readStrings(String text) {
        JsonNode n = read(text);
        List<String> out = new ArrayList<>();
        if (n instanceof ArrayNode a) {
            a.forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    /** Parses a stored JSON object of strings (empty when null). */
    public static Map<String, String> readStringMap(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        readObject(text).fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    /** Writes a tree or a plain value (list, map) as compact JSON text. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Value is not serialisable as JSON", e);
        }
    }
}
