package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import io.tapline.state.json.PythonJson.Layout;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PythonJson#parse} against {@code json.loads}. Expected outputs are CPython 3.11's
 * {@code json.dumps(json.loads(input))}.
 */
class PythonJsonParseTest {

    private static String roundTrip(String text) {
        return PythonJson.write(PythonJson.parse(text), Layout.DEFAULT);
    }

    private static InvalidJsonException invalid(String text) {
        return assertThrows(InvalidJsonException.class, () -> PythonJson.parse(text), text);
    }

    @Nested
    class NonNumericTokens {

        @Test
        void nanAndInfinitiesAreDoubles() {
            JsonNode a = PythonJson.parse("[NaN, Infinity, -Infinity]");
            assertTrue(Double.isNaN(a.get(0).doubleValue()));
            assertEquals(DoubleNode.valueOf(Double.POSITIVE_INFINITY), a.get(1));
            assertEquals(DoubleNode.valueOf(Double.NEGATIVE_INFINITY), a.get(2));
            assertEquals("[NaN, Infinity, -Infinity]", PythonJson.write(a, Layout.DEFAULT));
        }

        @Test
        void atTopLevelAndAsObjectValues() {
            assertEquals("NaN", roundTrip("NaN"));
            assertEquals("-Infinity", roundTrip(" -Infinity\n"));
            assertEquals("{\"n\": NaN}", roundTrip("{\"n\":NaN}"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"+Infinity", "-INF", "+INF", "INF", "nan", "infinity", "-NaN", "NaNx", "Infinityy",
                "[+Infinity]", "{\"a\": -INF}", "+1", "- 1", "-Infinity1"})
        void otherSpellingsAreRejected(String text) {
            invalid(text);
        }
    }

    @Nested
    class Objects {

        @Test
        void duplicateKeyKeepsFirstPositionAndLastValue() {
            assertEquals("{\"a\": 3, \"b\": 2}", roundTrip("{\"a\":1,\"b\":2,\"a\":3}"));
        }

        @Test
        void duplicateObjectValueIsReplacedNotMerged() {
            assertEquals("{\"z\": {\"x\": 3}, \"a\": 2}", roundTrip("{\"z\":{\"y\":1},\"a\":2,\"z\":{\"x\":3}}"));
        }

        @Test
        void insertionOrderIsKept() {
            assertEquals("{\"zz\": 1, \"a\": 2, \"m\": {\"y\": 1, \"b\": 2}}",
                    roundTrip("{\"zz\":1,\"a\":2,\"m\":{\"y\":1,\"b\":2}}"));
        }

        @Test
        void emptyAndOddKeys() {
            assertEquals("{\"\": 1, \" \": 2, \"\\u00e9\": 3}", roundTrip("{\"\":1,\" \":2,\"\u00e9\":3}"));
        }
    }

    @Nested
    class Numbers {

        @Test
        void integersUseTheNarrowestNode() {
            JsonNode a = PythonJson.parse("[2147483647, 2147483648, -2147483648, -2147483649, 9223372036854775807, "
                    + "9223372036854775808, -9223372036854775808, -9223372036854775809]");
            assertEquals(IntNode.valueOf(Integer.MAX_VALUE), a.get(0));
            assertEquals(LongNode.valueOf(2147483648L), a.get(1));
            assertEquals(IntNode.valueOf(Integer.MIN_VALUE), a.get(2));
            assertEquals(LongNode.valueOf(-2147483649L), a.get(3));
            assertEquals(LongNode.valueOf(Long.MAX_VALUE), a.get(4));
            assertEquals(BigIntegerNode.valueOf(new BigInteger("9223372036854775808")), a.get(5));
            assertEquals(LongNode.valueOf(Long.MIN_VALUE), a.get(6));
            assertEquals(BigIntegerNode.valueOf(new BigInteger("-9223372036854775809")), a.get(7));
        }

        @Test
        void bigIntegersAreExact() {
            String big = "123456789012345678901234567890123456789012345678901234567890";
            assertEquals(big, roundTrip(big));
            assertEquals("-" + big, roundTrip("-" + big));
            assertEquals(new BigInteger(big), PythonJson.parse(big).bigIntegerValue());
        }

        @Test
        void integerDigitLimitIsPythons4300() {
            String max = "9".repeat(4300);
            assertEquals(max, roundTrip(max));
            assertEquals("-" + max, roundTrip("-" + max));
            InvalidJsonException e = invalid("[" + "1".repeat(4301) + "]");
            assertTrue(e.getMessage().startsWith("Exceeds the limit (4300 digits) for integer string conversion: "
                    + "value has 4301 digits: line 1 column 2"), e.getMessage());
        }

        @Test
        void longFloatLiteralsHaveNoLimit() {
            // json.dumps(json.loads("1." + "1" * 5000))
            assertEquals("1.1111111111111112", roundTrip("1." + "1".repeat(5000)));
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource({
                "1e5, 100000.0",
                "1E5, 100000.0",
                "1.0, 1.0",
                "-0, 0",
                "-0.0, -0.0",
                "0e0, 0.0",
                "1E+2, 100.0",
                "1e400, Infinity",
                "-1e400, -Infinity",
                "1e-400, 0.0",
                "-1e-400, -0.0",
                "123456789012345678901234567890.5, 1.2345678901234568e+29",
                "0.1, 0.1",
                "5e-324, 5e-324",
                "2.4e-324, 0.0",
                "2.5e-324, 5e-324",
        })
        void numbersReadAsPythonDoes(String input, String expected) {
            assertEquals(expected, roundTrip(input));
        }

        @Test
        void anyFractionOrExponentMakesADouble() {
            assertInstanceOf(DoubleNode.class, PythonJson.parse("1.0"));
            assertInstanceOf(DoubleNode.class, PythonJson.parse("1e0"));
            assertInstanceOf(DoubleNode.class, PythonJson.parse("12345678901234567890e0"));
            assertInstanceOf(IntNode.class, PythonJson.parse("1"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"01", "-01", "1.", ".5", "1.e5", "1e", "1e+", "-", "0x10", "1_000", "[1.]", "--1"})
        void malformedNumbersAreRejected(String text) {
            invalid(text);
        }
    }

    @Nested
    class Strings {

        @Test
        void escapesAreDecoded() {
            JsonNode s = PythonJson.parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"");
            assertEquals("\"\\/\b\f\n\r\t\u00e9\ud83d\ude00", s.textValue());
        }

        @Test
        void loneSurrogateEscapesAreKept() {
            assertEquals("\ud800", PythonJson.parse("\"\\ud800\"").textValue());
            assertEquals("[\"\\ud800\", \"\\udc00x\"]", roundTrip("[\"\\ud800\", \"\\udc00x\"]"));
        }

        @Test
        void rawNonAsciiAndDelAreAccepted() {
            assertEquals("\"\\u00e9\\u007f\\ud83d\\ude00\\u2028\"", roundTrip("\"\u00e9\u007f\ud83d\ude00\u2028\""));
        }

        @ParameterizedTest
        @ValueSource(strings = {"\"a\u0001b\"", "\"a\nb\"", "\"a\tb\"", "\"\\x\"", "\"\\u12\"", "\"\\u12g4\"", "\"abc",
                "'a'", "\"\\\"", "\"\\U0001F600\""})
        void malformedStringsAreRejected(String text) {
            invalid(text);
        }

        @Test
        void longStringsHaveNoLimit() {
            String s = "x".repeat(20_000_001);
            assertEquals(s.length(), PythonJson.parse("\"" + s + "\"").textValue().length());
        }
    }

    @Nested
    class Documents {

        @Test
        void anyValueAtTopLevel() {
            assertEquals("\"x\"", roundTrip("\"x\""));
            assertEquals("null", roundTrip("null"));
            assertEquals("true", roundTrip("true"));
            assertEquals("[]", roundTrip("[]"));
            assertEquals("3", roundTrip("3"));
        }

        @Test
        void pythonWhitespaceIsAccepted() {
            assertEquals("{\"a\": [1, 2]}", roundTrip(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] }\r\n "));
        }

        @ParameterizedTest
        @ValueSource(strings = {"\f{}", "{}\u000b", "\u00a0{}", "\u2028{}", "{}\u0000"})
        void otherWhitespaceIsRejected(String text) {
            invalid(text);
        }

        @ParameterizedTest
        @ValueSource(strings = {"{} x", "1 2", "{}{}", "[]]", "{}}", "null,", "1x", "\"a\"\"b\"", "true false"})
        void trailingDataIsRejected(String text) {
            invalid(text);
        }

        @ParameterizedTest
        @ValueSource(strings = {"[1,]", "{\"a\":1,}", "{'a':1}", "{a:1}", "/*c*/1", "// c\n1", "# c\n1", "[1 2]",
                "{\"a\" 1}", "{\"a\":}", "[", "{", "{\"a\":1", "nul", "tru", "True", "None", "undefined", "[,1]"})
        void malformedDocumentsAreRejected(String text) {
            invalid(text);
        }

        @Test
        void emptyInputIsRejectedLikePython() {
            // json.loads("") -> "Expecting value: line 1 column 1 (char 0)"
            InvalidJsonException e = invalid("");
            assertEquals("Expecting value: line 1 column 1 (char 0)", e.getMessage());
            assertEquals(1, e.line());
            assertEquals(1, e.column());
            assertEquals(0, e.offset());
            assertEquals("Expecting value", e.reason());
            invalid("   \n\t");
        }

        @Test
        void errorsNameLineAndColumn() {
            InvalidJsonException e = invalid("{\n  \"a\": 1,\n  \"b\": x\n}");
            assertEquals(3, e.line());
            assertEquals(8, e.column());
            assertTrue(e.getMessage().endsWith(": line 3 column 8 (char 19)"), e.getMessage());
            assertTrue(e.getMessage().length() < 120, e.getMessage());
        }

        @Test
        void extraDataMessage() {
            // json.loads("{} {}") -> "Extra data: line 1 column 4 (char 3)"
            assertEquals("Extra data: line 1 column 4 (char 3)", invalid("{} {}").getMessage());
            assertEquals("Extra data: line 1 column 3 (char 2)", invalid("1 2").getMessage());
        }

        @Test
        void messagesAreShortAndSingleLine() {
            for (String text : List.of("[1", "{\"a\":", "[1,]", "nul", "\"abc", "-")) {
                String m = invalid(text).getMessage();
                assertTrue(!m.contains("\n") && !m.contains("REDACTED") && !m.contains("+INF") && m.length() < 120, m);
            }
        }

        @Test
        void leadingByteOrderMarkInTextIsRejectedLikePython() {
            assertEquals("Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)",
                    invalid("\ufeff{}").getMessage());
        }

        @Test
        void nestingUpTo1000LevelsIsAccepted() {
            String deep = "[".repeat(1000) + "]".repeat(1000);
            assertEquals(deep.replace("][", "], ["), roundTrip(deep));
            invalid("[".repeat(1001) + "]".repeat(1001));
            invalid("{\"a\":".repeat(1001) + "1" + "}".repeat(1001));
        }

        @Test
        void nullTextIsANullPointer() {
            assertThrows(NullPointerException.class, () -> PythonJson.parse((String) null));
            assertThrows(NullPointerException.class, () -> PythonJson.parse((byte[]) null));
            assertThrows(NullPointerException.class, () -> PythonJson.parseLenientUtf8(null));
        }
    }

    /** {@code json.loads(bytes)}: UTF-8 with {@code utf-8-sig} and {@code surrogatepass}. */
    @Nested
    class Bytes {

        private byte[] utf8(String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }

        @Test
        void utf8IsDecoded() {
            assertEquals("{\"x\": \"caf\\u00e9 \\ud83d\\ude00\"}",
                    PythonJson.write(PythonJson.parse(utf8("{\"x\": \"caf\u00e9 \ud83d\ude00\"}")), Layout.DEFAULT));
        }

        @Test
        void oneByteOrderMarkIsSkipped() {
            byte[] withBom = HexFormat.of().parseHex("efbbbf7b7d"); // BOM + "{}"
            assertEquals("{}", PythonJson.write(PythonJson.parse(withBom), Layout.DEFAULT));
            assertThrows(InvalidJsonException.class, () -> PythonJson.parse(HexFormat.of().parseHex("efbbbfefbbbf7b7d")));
        }

        @Test
        void encodedSurrogatesPassAsLoneSurrogates() {
            // json.loads(b'"\xed\xa0\x80"') == "\ud800"
            assertEquals("\ud800", PythonJson.parse(HexFormat.of().parseHex("22eda08022")).textValue());
        }

        @ParameterizedTest
        @CsvSource({
                "2280, Invalid UTF-8 start byte 0x80: line 1 column 2 (byte 1)",
                "22c0af22, Invalid UTF-8 start byte 0xc0: line 1 column 2 (byte 1)",
                "22e0808022, Invalid UTF-8 continuation byte 0x80: line 1 column 2 (byte 1)",
                "22f4908080, Invalid UTF-8 continuation byte 0x90: line 1 column 2 (byte 1)",
                "0a2061e2, Truncated UTF-8 sequence: line 2 column 3 (byte 3)",
                "22ff22, Invalid UTF-8 start byte 0xff: line 1 column 2 (byte 1)",
        })
        void illFormedUtf8IsAnErrorWithBytePosition(String hex, String message) {
            InvalidJsonException e = assertThrows(InvalidJsonException.class,
                    () -> PythonJson.parse(HexFormat.of().parseHex(hex)));
            assertEquals(message, e.getMessage());
        }

        @Test
        void invalidJsonInBytes() {
            assertThrows(InvalidJsonException.class, () -> PythonJson.parse(new byte[0]));
            assertThrows(InvalidJsonException.class, () -> PythonJson.parse(utf8("{\"a\"")));
        }
    }

    /** Meltano's {@code line.decode(errors="replace")} then {@code json.loads}. */
    @Nested
    class LenientBytes {

        /** Bytes inside a JSON string; expected is CPython's json.dumps of the decoded result. */
        @ParameterizedTest(name = "{0}")
        @CsvSource({
                "80, \\ufffd",
                "c0af, \\ufffd\\ufffd",
                "e080af, \\ufffd\\ufffd\\ufffd",
                "eda080, \\ufffd\\ufffd\\ufffd",
                "edbfbf, \\ufffd\\ufffd\\ufffd",
                "f08080, \\ufffd\\ufffd\\ufffd",
                "f0808080, \\ufffd\\ufffd\\ufffd\\ufffd",
                "f4908080, \\ufffd\\ufffd\\ufffd\\ufffd",
                "f5, \\ufffd",
                "ff, \\ufffd",
                "e282, \\ufffd",
                "f09f98, \\ufffd",
                "f09f98e2, \\ufffd\\ufffd",
                "c3c3a9, \\ufffd\\u00e9",
                "e282ac41, \\u20acA",
                "f09f9880, \\ud83d\\ude00",
                "f48fbfbf, \\udbff\\udfff",
                "61e2ff62, a\\ufffd\\ufffdb",
                "efbfbd, \\ufffd",
                "f490, \\ufffd\\ufffd",
                "fe, \\ufffd",
        })
        void replacementMatchesPython(String hex, String expected) {
            byte[] inner = HexFormat.of().parseHex(hex);
            byte[] line = new byte[inner.length + 3];
            line[0] = '"';
            System.arraycopy(inner, 0, line, 1, inner.length);
            line[inner.length + 1] = '"';
            line[inner.length + 2] = '\n';
            assertEquals("\"" + expected + "\"", PythonJson.write(PythonJson.parseLenientUtf8(line), Layout.DEFAULT));
        }

        @Test
        void validLinesParseNormally() {
            byte[] line = "{\"type\": \"STATE\", \"value\": {\"b\": \"\u00e9\"}}\n".getBytes(StandardCharsets.UTF_8);
            assertEquals("{\"type\": \"STATE\", \"value\": {\"b\": \"\\u00e9\"}}",
                    PythonJson.write(PythonJson.parseLenientUtf8(line), Layout.DEFAULT));
        }

        @Test
        void byteOrderMarkIsNotSkipped() {
            // b"\xef\xbb\xbf{}".decode(errors="replace") starts with U+FEFF, which json.loads rejects
            assertThrows(InvalidJsonException.class, () -> PythonJson.parseLenientUtf8(HexFormat.of().parseHex("efbbbf7b7d")));
        }

        @Test
        void invalidBytesOutsideStringsStillFailTheParse() {
            assertThrows(InvalidJsonException.class, () -> PythonJson.parseLenientUtf8(HexFormat.of().parseHex("7bff7d")));
        }
    }
}
