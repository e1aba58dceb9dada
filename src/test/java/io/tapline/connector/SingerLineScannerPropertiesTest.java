package io.tapline.connector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.connector.SingerLineScanner.Outcome;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Properties of {@link SingerLineScanner} against Jackson: JSON that Jackson writes always
 * validates, no proper prefix of an object or array does, extracted fields match, and on random
 * mutations the scanner agrees with Jackson's strict parser.
 */
class SingerLineScannerPropertiesTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Writes NaN and infinities as bare tokens, like Python's json.dumps. */
    private static final JsonMapper WRITER = JsonMapper.builder()
            .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
            .build();

    /** Strict JSON plus NaN/Infinity; a value must be the only thing on the line. */
    private static final JsonMapper STRICT_READER = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The three ways taps write JSON: compact, spaced (classic singer-python), ASCII-only escaped. */
    enum Style {
        COMPACT, SPACED, ASCII_ESCAPED
    }

    private final SingerLineScanner scanner = new SingerLineScanner();

    @Property(tries = 500)
    void jsonWrittenByJacksonIsValid(@ForAll("containers") JsonNode value, @ForAll Style style) {
        byte[] line = write(value, style);
        Outcome outcome = scanner.scan(line, 0, line.length);
        assertEquals(value.isObject() ? Outcome.OBJECT : Outcome.VALUE, outcome,
                () -> text(line) + " -> " + scanner.errorReason() + " at " + scanner.errorPosition());
    }

    @Property(tries = 200)
    void everyProperPrefixOfAnObjectOrArrayIsRejected(@ForAll("containers") JsonNode value, @ForAll Style style) {
        byte[] line = write(value, style);
        for (int length = 0; length < line.length; length++) {
            Outcome outcome = scanner.scan(line, 0, length);
            int cut = length;
            assertFalse(outcome.isValid(), () -> "prefix of " + cut + " bytes: " + text(Arrays.copyOf(line, cut)));
        }
    }

    @Property(tries = 500)
    void typeAndStreamAreExtractedAsJacksonWroteThem(@ForAll("names") String type, @ForAll("names") String stream,
                                                     @ForAll("containers") JsonNode payload, @ForAll Style style,
                                                     @ForAll @IntRange(min = 0, max = 3) int position) {
        ObjectNode message = NODES.objectNode();
        // Decoys: nested "type"/"stream" keys with other values, placed before and after the real ones.
        ObjectNode decoy = NODES.objectNode().put("type", "decoy-" + type).put("stream", "decoy-" + stream);
        decoy.set("payload", payload);
        String[] order = {"record", "type", "stream", "value"};
        String[] rotated = new String[4];
        for (int i = 0; i < 4; i++) {
            rotated[i] = order[(i + position) % 4];
        }
        for (String key : rotated) {
            switch (key) {
                case "type" -> message.put("type", type);
                case "stream" -> message.put("stream", stream);
                case "record" -> message.set("record", decoy);
                default -> message.set("value", NODES.arrayNode().add(decoy).add(type));
            }
        }
        byte[] line = write(message, style);
        assertEquals(Outcome.OBJECT, scanner.scan(line, 0, line.length), () -> text(line));
        assertEquals(type, scanner.type());
        assertEquals(MessageType.fromWireName(type), scanner.messageType());
        assertEquals(stream, scanner.stream());
    }

    @Property(tries = 3000)
    void agreesWithJacksonOnMutatedJson(@ForAll("containers") JsonNode value, @ForAll("mutations") List<Mutation> mutations) {
        byte[] line = write(value, Style.ASCII_ESCAPED);
        for (Mutation mutation : mutations) {
            line = mutation.apply(line);
        }
        String text = text(line);
        // Jackson also accepts these spellings of infinity, which Python never writes, and rejects
        // unpaired surrogate escapes in keys, which JSON's grammar (and Python) allow.
        if (text.contains("INF") || text.contains("+I") || hasUnpairedSurrogateEscape(text)) {
            return;
        }
        Outcome outcome = scanner.scan(line, 0, line.length);
        boolean jacksonAccepts;
        try {
            JsonNode tree = STRICT_READER.readTree(line);
            jacksonAccepts = tree != null && !tree.isMissingNode();
        } catch (IOException e) {
            jacksonAccepts = false;
        }
        boolean blank = text.chars().allMatch(c -> c == ' ' || c == '\t' || c == '\r' || c == '\n');
        assertEquals(jacksonAccepts, outcome.isValid(), () -> text + " -> " + outcome + " " + scanner.errorReason());
        assertEquals(blank, outcome == Outcome.BLANK, text);
    }

    // ---- Generators ------------------------------------------------------------------------------

    @Provide
    Arbitrary<JsonNode> containers() {
        return Arbitraries.oneOf(objects(3), arrays(3));
    }

    private Arbitrary<JsonNode> values(int depth) {
        if (depth == 0) {
            return scalars();
        }
        return Arbitraries.frequencyOf(
                Tuple.of(5, scalars()),
                Tuple.of(1, Arbitraries.lazy(() -> objects(depth - 1))),
                Tuple.of(1, Arbitraries.lazy(() -> arrays(depth - 1))));
    }

    private Arbitrary<JsonNode> objects(int depth) {
        return Arbitraries.maps(strings(), values(depth)).ofMaxSize(5).map(fields -> {
            ObjectNode object = NODES.objectNode();
            for (Map.Entry<String, JsonNode> field : fields.entrySet()) {
                object.set(field.getKey(), field.getValue());
            }
            return object;
        });
    }

    private Arbitrary<JsonNode> arrays(int depth) {
        return values(depth).list().ofMaxSize(5).map(items -> {
            ArrayNode array = NODES.arrayNode();
            items.forEach(array::add);
            return array;
        });
    }

    private Arbitrary<JsonNode> scalars() {
        return Arbitraries.oneOf(
                strings().map(NODES::textNode),
                Arbitraries.longs().map(NODES::numberNode),
                Arbitraries.integers().between(-10, 10).map(NODES::numberNode),
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30)).map(NODES::numberNode),
                Arbitraries.doubles().withSpecialValue(Double.NaN).withSpecialValue(Double.POSITIVE_INFINITY)
                        .withSpecialValue(Double.NEGATIVE_INFINITY).withSpecialValue(-0.0).map(NODES::numberNode),
                Arbitraries.bigDecimals().between(new BigDecimal("-1e12"), new BigDecimal("1e12")).ofScale(6)
                        .map(NODES::numberNode),
                Arbitraries.of(NODES.booleanNode(true), NODES.booleanNode(false), NODES.nullNode()));
    }

    /** Unicode text without lone surrogates, biased towards characters that need escaping. */
    private Arbitrary<String> strings() {
        Arbitrary<Integer> special = Arbitraries.of((int) '"', (int) '\\', (int) '/', 0, 1, 0x1F, (int) '\n', (int) '\t',
                0x7F, 0xE9, 0x2028, 0xFFFF, 0x1F600, (int) ' ', (int) ':', (int) ',', (int) '{', (int) ']');
        Arbitrary<Integer> any = Arbitraries.integers().between(0, 0x10FFFF)
                .filter(cp -> cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE);
        Arbitrary<Integer> ascii = Arbitraries.integers().between(0x20, 0x7E);
        return Arbitraries.frequencyOf(Tuple.of(3, ascii), Tuple.of(2, special), Tuple.of(1, any))
                .list().ofMaxSize(24)
                .map(codePoints -> {
                    StringBuilder s = new StringBuilder();
                    codePoints.forEach(s::appendCodePoint);
                    return s.toString();
                });
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.oneOf(
                Arbitraries.of("RECORD", "SCHEMA", "STATE", "ACTIVATE_VERSION", "BATCH", "METRIC", "record", "",
                        "main-orders", "public.orders"),
                strings());
    }

    /** One edit of a line: delete, insert or replace a byte, or cut the line. */
    record Mutation(int kind, int position, byte value) {
        byte[] apply(byte[] line) {
            if (line.length == 0) {
                return kind == 1 ? new byte[] {value} : line;
            }
            int at = Math.floorMod(position, line.length);
            return switch (kind) {
                case 0 -> concat(Arrays.copyOf(line, at), Arrays.copyOfRange(line, at + 1, line.length));
                case 1 -> concat(Arrays.copyOf(line, at), new byte[] {value}, Arrays.copyOfRange(line, at, line.length));
                case 2 -> {
                    byte[] copy = line.clone();
                    copy[at] = value;
                    yield copy;
                }
                default -> Arrays.copyOf(line, at);
            };
        }

        private static byte[] concat(byte[]... parts) {
            int length = 0;
            for (byte[] part : parts) {
                length += part.length;
            }
            byte[] out = new byte[length];
            int offset = 0;
            for (byte[] part : parts) {
                System.arraycopy(part, 0, out, offset, part.length);
                offset += part.length;
            }
            return out;
        }
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        byte[] alphabet = "{}[]\":,0123456789-+.eEtrufalsnNIy \t\r\n\\/u'x\u0001".getBytes(StandardCharsets.ISO_8859_1);
        Arbitrary<Byte> bytes = Arbitraries.of(toBoxed(alphabet));
        Arbitrary<Mutation> mutation = Combinators.combine(
                Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 10_000), bytes)
                .as(Mutation::new);
        return mutation.list().ofMinSize(1).ofMaxSize(3);
    }

    private static Byte[] toBoxed(byte[] bytes) {
        Byte[] boxed = new Byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            boxed[i] = bytes[i];
        }
        return boxed;
    }

    // ---- Helpers ---------------------------------------------------------------------------------

    private static byte[] write(JsonNode value, Style style) {
        try {
            return switch (style) {
                case COMPACT -> WRITER.writeValueAsBytes(value);
                case SPACED -> {
                    // Jackson's pretty printer on one line: strings never contain a raw newline.
                    String pretty = WRITER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
                    yield pretty.replace('\n', ' ').getBytes(StandardCharsets.UTF_8);
                }
                case ASCII_ESCAPED -> WRITER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII).writeValueAsBytes(value);
            };
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** True if a {@code \\uXXXX} escape encodes a surrogate that is not part of an escaped pair. */
    static boolean hasUnpairedSurrogateEscape(String text) {
        boolean pendingHigh = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\' || i + 1 >= text.length()) {
                if (pendingHigh) {
                    return true;
                }
                continue;
            }
            char kind = text.charAt(i + 1);
            if (kind != 'u' || i + 6 > text.length()) {
                if (pendingHigh) {
                    return true;
                }
                i++;
                continue;
            }
            int unit;
            try {
                unit = Integer.parseInt(text.substring(i + 2, i + 6), 16);
            } catch (NumberFormatException e) {
                return pendingHigh;
            }
            if (Character.isHighSurrogate((char) unit)) {
                if (pendingHigh) {
                    return true;
                }
                pendingHigh = true;
            } else if (Character.isLowSurrogate((char) unit)) {
                if (!pendingHigh) {
                    return true;
                }
                pendingHigh = false;
            } else if (pendingHigh) {
                return true;
            }
            i += 5;
        }
        return pendingHigh;
    }

    private static String text(byte[] line) {
        return new String(line, StandardCharsets.UTF_8);
    }
}
