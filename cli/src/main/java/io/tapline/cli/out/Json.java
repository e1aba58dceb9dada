package io.tapline.cli.out;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.CliException;

import java.io.IOException;

/**
 * Jackson, loaded on first use only (a {@code state get} never loads it). Numbers with a fraction
 * or an exponent are read as {@link java.math.BigDecimal} so that {@code --format json} prints them
 * as the API wrote them.
 */
public final class Json {

    private Json() {
    }

    private static final class Holder {
        static final ObjectMapper MAPPER = new ObjectMapper()
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        static final ObjectWriter PRETTY = MAPPER.writer(new Pretty());
    }

    /** Two-space indent, {@code "key": value}, and {@code []} / {@code {}} for empty containers. */
    private static final class Pretty extends DefaultPrettyPrinter {

        Pretty() {
            super(Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER));
            indentArraysWith(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"));
            indentObjectsWith(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"));
        }

        Pretty(Pretty base) {
            super(base);
        }

        @Override
        public DefaultPrettyPrinter createInstance() {
            return new Pretty(this);
        }

        @Override
        public void writeEndArray(com.fasterxml.jackson.core.JsonGenerator g, int values) throws IOException {
            if (values == 0) {
                _nesting--;
                g.writeRaw(']');
            } else {
                super.writeEndArray(g, values);
            }
        }

        @Override
        public void writeEndObject(com.fasterxml.jackson.core.JsonGenerator g, int entries) throws IOException {
            if (entries == 0) {
                _nesting--;
                g.writeRaw('}');
            } else {
                super.writeEndObject(g, entries);
            }
        }
    }

    /** The shared mapper. */
    public static ObjectMapper mapper() {
        return Holder.MAPPER;
    }

    /** Parses an API body; an empty one reads as a missing node. */
    public static JsonNode parse(byte[] body) {
        if (body.length == 0) {
            return MissingNode.getInstance();
        }
        try {
            return Holder.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException("The service answered with JSON that cannot be read: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Parses JSON the user gave (an argument or a file).
     *
     * @param what what it is, for the message ("the state", "--input-file x.json")
     * @throws CliException (usage) when it is not JSON
     */
    public static JsonNode input(String text, String what) {
        try {
            return Holder.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw CliException.usage("Invalid JSON provided in " + what + ": " + e.getOriginalMessage()
                    + " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ").");
        }
    }

    /** Indented JSON (2 spaces, {@code "key": value}), no trailing newline. */
    public static String pretty(JsonNode n) {
        try {
            return Holder.PRETTY.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Compact JSON. */
    public static String compact(Object n) {
        try {
            return Holder.MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A new empty object. */
    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
