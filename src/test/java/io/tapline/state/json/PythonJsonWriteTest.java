package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.node.ShortNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.state.json.PythonJson.Layout;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link PythonJson#write} against {@code json.dumps} output. Every expected literal was printed by
 * CPython 3.11 ({@code json.dumps(value)}, {@code separators=(",", ":")}, {@code indent=2}).
 */
class PythonJsonWriteTest {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** meltano-state.md §8: the state.json record and the compact `state get` form. */
    @Nested
    class SpecVectors {

        static final String RECORD = "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"users\": {\"replication_key\": "
                + "\"updated_at\", \"replication_key_value\": \"2024-01-01T00:00:00+00:00\"}}, \"currently_syncing\": null}}, "
                + "\"partial\": {}}";

        @Test
        void stateJsonRecordBuiltInJava() {
            ObjectNode users = F.objectNode();
            users.put("replication_key", "updated_at");
            users.put("replication_key_value", "2024-01-01T00:00:00+00:00");
            ObjectNode singer = F.objectNode();
            singer.putObject("bookmarks").set("users", users);
            singer.putNull("currently_syncing");
            ObjectNode record = F.objectNode();
            record.putObject("completed").set("singer_state", singer);
            record.putObject("partial");
            assertEquals(RECORD, PythonJson.write(record, Layout.DEFAULT));
        }

        @Test
        void stateJsonRecordRoundTrips() {
            assertEquals(RECORD, PythonJson.write(PythonJson.parse(RECORD), Layout.DEFAULT));
        }

        @Test
        void escapesAndNumbers() {
            JsonNode value = PythonJson.parse("{\"singer_state\": {\"x\": \"caf\u00e9 \ud83d\ude00\", \"f\": 1e16, "
                    + "\"g\": 1e-05, \"h\": 100000.0, \"n\": NaN}}");
            assertEquals("{\"singer_state\": {\"x\": \"caf\\u00e9 \\ud83d\\ude00\", \"f\": 1e+16, \"g\": 1e-05, "
                    + "\"h\": 100000.0, \"n\": NaN}}", PythonJson.write(value, Layout.DEFAULT));
        }

        @Test
        void controlAndSpecialCharacters() {
            String s = "a\"b\\c/d\n\r\t\b\f\u0001\u007f\u2028\u00e9";
            assertEquals("\"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\\u0001\\u007f\\u2028\\u00e9\"",
                    PythonJson.write(TextNode.valueOf(s), Layout.DEFAULT));
        }

        @Test
        void stateGetCompact() {
            JsonNode merged = PythonJson.parse(RECORD).get("completed");
            assertEquals("{\"singer_state\":{\"bookmarks\":{\"users\":{\"replication_key\":\"updated_at\","
                    + "\"replication_key_value\":\"2024-01-01T00:00:00+00:00\"}},\"currently_syncing\":null}}",
                    PythonJson.write(merged, Layout.COMPACT));
        }

        @Test
        void prettyAndTapFile() {
            JsonNode merged = PythonJson.parse(RECORD).get("completed");
            assertEquals("{\n  \"singer_state\": {\n    \"bookmarks\": {\n      \"users\": {\n"
                    + "        \"replication_key\": \"updated_at\",\n"
                    + "        \"replication_key_value\": \"2024-01-01T00:00:00+00:00\"\n      }\n    },\n"
                    + "    \"currently_syncing\": null\n  }\n}", PythonJson.write(merged, Layout.INDENT2));
        }
    }

    @Nested
    class Layouts {

        static final String MIXED = "{\"s\": \"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\\u0001\\u007f\\u2028\\u00e9\", \"e\": [], "
                + "\"o\": {}, \"l\": [1, [2, {}], {\"k\": []}], \"t\": true, \"f\": false, \"n\": null, \"i\": -12, "
                + "\"big\": 1180591620717411303424, \"x\": 0.5, \"nan\": NaN, \"inf\": -Infinity}";

        @Test
        void defaultSeparators() {
            assertEquals(MIXED, PythonJson.write(PythonJson.parse(MIXED), Layout.DEFAULT));
        }

        @Test
        void compactSeparators() {
            assertEquals("{\"s\":\"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\\u0001\\u007f\\u2028\\u00e9\",\"e\":[],\"o\":{},"
                    + "\"l\":[1,[2,{}],{\"k\":[]}],\"t\":true,\"f\":false,\"n\":null,\"i\":-12,"
                    + "\"big\":1180591620717411303424,\"x\":0.5,\"nan\":NaN,\"inf\":-Infinity}",
                    PythonJson.write(PythonJson.parse(MIXED), Layout.COMPACT));
        }

        @Test
        void indent2() {
            assertEquals("{\n  \"s\": \"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\\u0001\\u007f\\u2028\\u00e9\",\n  \"e\": [],\n"
                    + "  \"o\": {},\n  \"l\": [\n    1,\n    [\n      2,\n      {}\n    ],\n    {\n      \"k\": []\n"
                    + "    }\n  ],\n  \"t\": true,\n  \"f\": false,\n  \"n\": null,\n  \"i\": -12,\n"
                    + "  \"big\": 1180591620717411303424,\n  \"x\": 0.5,\n  \"nan\": NaN,\n  \"inf\": -Infinity\n}",
                    PythonJson.write(PythonJson.parse(MIXED), Layout.INDENT2));
        }

        @Test
        void indent2EdgeCases() {
            assertEquals("[]", PythonJson.write(F.arrayNode(), Layout.INDENT2));
            assertEquals("{}", PythonJson.write(F.objectNode(), Layout.INDENT2));
            assertEquals("\"x\"", PythonJson.write(TextNode.valueOf("x"), Layout.INDENT2));
            assertEquals("[\n  []\n]", PythonJson.write(PythonJson.parse("[[]]"), Layout.INDENT2));
        }

        @ParameterizedTest
        @EnumSource(Layout.class)
        void scalarsAtTopLevel(Layout layout) {
            assertEquals("null", PythonJson.write(F.nullNode(), layout));
            assertEquals("true", PythonJson.write(F.booleanNode(true), layout));
            assertEquals("false", PythonJson.write(F.booleanNode(false), layout));
            assertEquals("7", PythonJson.write(IntNode.valueOf(7), layout));
            assertEquals("\"\"", PythonJson.write(TextNode.valueOf(""), layout));
        }

        @ParameterizedTest
        @EnumSource(Layout.class)
        void keysKeepInsertionOrderAndAreNotSorted(Layout layout) {
            ObjectNode o = F.objectNode();
            o.put("b", 1);
            o.put("a", 2);
            o.put("c", 3);
            String expected = switch (layout) {
                case COMPACT -> "{\"b\":1,\"a\":2,\"c\":3}";
                case DEFAULT -> "{\"b\": 1, \"a\": 2, \"c\": 3}";
                case INDENT2 -> "{\n  \"b\": 1,\n  \"a\": 2,\n  \"c\": 3\n}";
            };
            assertEquals(expected, PythonJson.write(o, layout));
        }
    }

    @Nested
    class Strings {

        @Test
        void everyCharacterClass() {
            StringBuilder sb = new StringBuilder();
            for (char c = 0; c < 0x82; c++) {
                sb.append(c);
            }
            sb.append("\u00ff\u0100\u07ff\u0800\ud7ff\ue000\ufeff\uffff")
                    .appendCodePoint(0x10000).appendCodePoint(0x1F600).appendCodePoint(0x10FFFF);
            // json.dumps("".join(chr(c) for c in range(0, 0x82)) + "\u00ff...\U0010ffff")
            String expected = "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r"
                    + "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a"
                    + "\\u001b\\u001c\\u001d\\u001e\\u001f !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    + "[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\\u007f\\u0080\\u0081\\u00ff\\u0100\\u07ff\\u0800\\ud7ff"
                    + "\\ue000\\ufeff\\uffff\\ud800\\udc00\\ud83d\\ude00\\udbff\\udfff\"";
            assertEquals(expected, PythonJson.write(TextNode.valueOf(sb.toString()), Layout.DEFAULT));
        }

        @Test
        void loneSurrogatesAreEscapedAsIs() {
            ArrayNode a = F.arrayNode().add("\ud800").add("\udfff").add("x\udbffy");
            assertEquals("[\"\\ud800\", \"\\udfff\", \"x\\udbffy\"]", PythonJson.write(a, Layout.DEFAULT));
        }

        @Test
        void keysAreEscapedLikeValues() {
            ObjectNode o = F.objectNode();
            o.put("k\u00e9\n\"", "v");
            assertEquals("{\"k\\u00e9\\n\\\"\": \"v\"}", PythonJson.write(o, Layout.DEFAULT));
        }

        @Test
        void slashIsNotEscaped() {
            assertEquals("\"a/b</script>\"", PythonJson.write(TextNode.valueOf("a/b</script>"), Layout.COMPACT));
        }

        @Test
        void outputIsAscii() {
            String out = PythonJson.write(TextNode.valueOf("\u00e9\u4e2d\ud83d\ude00"), Layout.DEFAULT);
            assertEquals("\"\\u00e9\\u4e2d\\ud83d\\ude00\"", out);
            assertArrayEquals(out.getBytes(StandardCharsets.US_ASCII), out.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Nested
    class Numbers {

        @Test
        void integersOfEverySize() {
            assertEquals("[0, -1, 2147483647, -2147483648, 9223372036854775807, -9223372036854775808, "
                    + "1180591620717411303424, -1180591620717411303424, 12]", PythonJson.write(F.arrayNode()
                    .add(IntNode.valueOf(0)).add(IntNode.valueOf(-1))
                    .add(IntNode.valueOf(Integer.MAX_VALUE)).add(IntNode.valueOf(Integer.MIN_VALUE))
                    .add(LongNode.valueOf(Long.MAX_VALUE)).add(LongNode.valueOf(Long.MIN_VALUE))
                    .add(BigIntegerNode.valueOf(BigInteger.TWO.pow(70)))
                    .add(BigIntegerNode.valueOf(BigInteger.TWO.pow(70).negate()))
                    .add(ShortNode.valueOf((short) 12)), Layout.DEFAULT));
        }

        @Test
        void hugeIntegerIsWrittenInFull() {
            BigInteger big = BigInteger.TEN.pow(5000).add(BigInteger.ONE);
            assertEquals(big.toString(), PythonJson.write(BigIntegerNode.valueOf(big), Layout.DEFAULT));
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource({
                "0.1, 0.1",
                "100000, 100000.0",
                "1E+400, Infinity",
                "-1E+400, -Infinity",
                "1E-400, 0.0",
                "123456789012345678901234567890.5, 1.2345678901234568e+29",
                "0.30000000000000000001, 0.3",
        })
        void decimalNodeIsWrittenAsTheNearestDouble(String decimal, String expected) {
            assertEquals(expected, PythonJson.write(DecimalNode.valueOf(new BigDecimal(decimal)), Layout.DEFAULT));
        }

        @Test
        void floatNodeIsWidenedExactly() {
            // json.dumps(float(numpy.float32(0.1))) == "0.10000000149011612"
            assertEquals("0.10000000149011612", PythonJson.write(FloatNode.valueOf(0.1f), Layout.DEFAULT));
            assertEquals("1.0", PythonJson.write(FloatNode.valueOf(1f), Layout.DEFAULT));
            assertEquals("NaN", PythonJson.write(FloatNode.valueOf(Float.NaN), Layout.DEFAULT));
        }

        @Test
        void specialFloats() {
            assertEquals("[NaN, Infinity, -Infinity, -0.0, 0.0]", PythonJson.write(F.arrayNode()
                    .add(Double.NaN).add(Double.POSITIVE_INFINITY).add(Double.NEGATIVE_INFINITY).add(-0.0).add(0.0),
                    Layout.DEFAULT));
        }
    }

    @Nested
    class Rejections {

        @Test
        void nodesJsonCannotHold() {
            assertThrows(IllegalArgumentException.class,
                    () -> PythonJson.write(MissingNode.getInstance(), Layout.DEFAULT));
            assertThrows(IllegalArgumentException.class,
                    () -> PythonJson.write(new POJONode(new Object()), Layout.DEFAULT));
            assertThrows(IllegalArgumentException.class,
                    () -> PythonJson.write(F.arrayNode().add(BinaryNode.valueOf(new byte[] {1})), Layout.DEFAULT));
        }

        @Test
        void nullArguments() {
            assertThrows(NullPointerException.class, () -> PythonJson.write(null, Layout.DEFAULT));
            assertThrows(NullPointerException.class, () -> PythonJson.write(F.objectNode(), null));
        }
    }

    @Nested
    class Streaming {

        /** More than several 8 KiB chunks, with one string larger than a chunk. */
        private JsonNode bigDocument() {
            ObjectNode root = F.objectNode();
            ArrayNode list = root.putArray("items");
            for (int i = 0; i < 3000; i++) {
                ObjectNode item = list.addObject();
                item.put("id", i);
                item.put("name", "n\u00e9" + i);
                item.put("v", i / 7.0);
            }
            root.put("huge", "\ud83d\ude00x".repeat(20_000));
            return root;
        }

        @ParameterizedTest
        @EnumSource(Layout.class)
        void appendableGetsTheSameText(Layout layout) throws IOException {
            JsonNode doc = bigDocument();
            StringWriter out = new StringWriter();
            PythonJson.write(doc, layout, out);
            assertEquals(PythonJson.write(doc, layout), out.toString());
        }

        @ParameterizedTest
        @EnumSource(Layout.class)
        void outputStreamGetsTheAsciiBytes(Layout layout) throws IOException {
            JsonNode doc = bigDocument();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PythonJson.write(doc, layout, out);
            assertArrayEquals(PythonJson.write(doc, layout).getBytes(StandardCharsets.US_ASCII), out.toByteArray());
        }

        @Test
        void smallDocumentIsWrittenOnce() throws IOException {
            StringBuilder out = new StringBuilder("prefix:");
            PythonJson.write(PythonJson.parse("{\"a\": [1, 2]}"), Layout.COMPACT, out);
            assertEquals("prefix:{\"a\":[1,2]}", out.toString());
        }

        @Test
        void ioErrorsPropagate() {
            OutputStream failing = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    throw new IOException("disk full");
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    throw new IOException("disk full");
                }
            };
            IOException e = assertThrows(IOException.class,
                    () -> PythonJson.write(bigDocument(), Layout.DEFAULT, failing));
            assertEquals("disk full", e.getMessage());
        }
    }

    @Test
    void writingDoesNotChangeTheTree() {
        JsonNode doc = PythonJson.parse(Layouts.MIXED);
        JsonNode copy = doc.deepCopy();
        PythonJson.write(doc, Layout.INDENT2);
        assertEquals(copy, doc);
        assertEquals(DoubleNode.valueOf(0.5), doc.get("x"));
    }
}
