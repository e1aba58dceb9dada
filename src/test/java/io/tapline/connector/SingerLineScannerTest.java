package io.tapline.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tapline.connector.SingerLineScanner.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static io.tapline.connector.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class SingerLineScannerTest {

    private static final ObjectMapper JACKSON = new ObjectMapper();

    private final SingerLineScanner scanner = new SingerLineScanner();

    private Outcome scan(String line) {
        byte[] bytes = utf8(line);
        return scanner.scan(bytes, 0, bytes.length);
    }

    private Outcome scan(byte[] line) {
        return scanner.scan(line, 0, line.length);
    }

    // ---- Real connector output -------------------------------------------------------------------

    @Test
    void everyLineOfRealTapOutputIsAnObjectWithTheTypeAndStreamJacksonSees() throws Exception {
        int lines = 0;
        for (String fixture : Fixtures.TAP_OUTPUTS) {
            for (byte[] line : Fixtures.singerLines(fixture)) {
                lines++;
                assertEquals(Outcome.OBJECT, scan(line), () -> fixture + ": " + new String(line));
                JsonNode tree = JACKSON.readTree(line);
                assertEquals(tree.get("type").asText(), scanner.type(), fixture);
                assertEquals(MessageType.fromWireName(tree.get("type").asText()), scanner.messageType(), fixture);
                assertEquals(tree.has("stream") ? tree.get("stream").asText() : null, scanner.stream(), fixture);
            }
        }
        assertTrue(lines >= 45, "all fixture lines were read");
    }

    @Test
    void realTargetStateLinesAreObjectsWithoutTypeOrStream() {
        for (String fixture : Fixtures.TARGET_OUTPUTS) {
            for (byte[] line : Fixtures.singerLines(fixture)) {
                assertEquals(Outcome.OBJECT, scan(line), fixture);
                assertNull(scanner.type());
                assertEquals(MessageType.OTHER, scanner.messageType());
                assertNull(scanner.stream());
            }
        }
    }

    @Test
    void classicSpacedSchemaLineKeepsItsTopLevelTypeDespiteNestedTypeKeys() {
        // The first line of classic tap-csv: "type" appears five times, only the first is top-level.
        byte[] line = Fixtures.singerLines("classic-tap-csv.tap-stdout.jsonl").get(0);
        assertEquals(Outcome.OBJECT, scan(line));
        assertEquals("SCHEMA", scanner.type());
        assertSame(MessageType.SCHEMA, scanner.messageType());
        assertEquals("people", scanner.stream());
    }

    // ---- Validity ----------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {
            "{}", "[]", "\"\"", "\"x\"", "0", "-0", "7", "-12", "1.5", "-0.0", "1e5", "1E+5", "1e-5", "-1.25E-10",
            "123456789012345678901234567890", "true", "false", "null", "NaN", "Infinity", "-Infinity",
            "[NaN,Infinity,-Infinity]", "{\"a\":NaN}", "{\"a\": -Infinity, \"b\": [Infinity]}",
            "{\"a\":{\"b\":[1,{\"c\":null},[],{}]}}", " {\"a\" : 1 } ", "\t[1,\r\n2]\r", "[ ]", "{ }",
            "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u00e9\\uD83D\\uDE00\\u0000\"", "\"\\ud800\"",
            "\"caf\u00e9 \ud83d\ude00\"", "\"\u007f\"", "[[[[[[[[[[]]]]]]]]]]", "{\"\":\"\"}",
            "{\"type\": \"RECORD\", \"stream\": \"s\", \"record\": {\"n\": -0.5e+3}}"
    })
    void acceptsValidJson(String json) {
        Outcome outcome = scan(json);
        assertTrue(outcome.isValid(), () -> json + " -> " + outcome + " " + scanner.errorReason());
        assertEquals(json.trim().startsWith("{") ? Outcome.OBJECT : Outcome.VALUE, outcome);
        assertNull(scanner.errorReason());
        assertEquals(-1, scanner.errorPosition());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{", "}", "[", "]", "{\"a\":1", "[1,2", "{\"a\"", "{\"a\":", "{\"type\":\"RECORD\",\"stream\":\"s",
            "{\"type\":\"RECORD\",\"stream\":\"s\"", "[1,]", "{\"a\":1,}", "{,}", "[,1]", "{\"a\"}", "{\"a\":}",
            "{a:1}", "{'a':1}", "['a']", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "[1 2]", "{\"a\":1}}", "[1]]",
            "{\"a\":1} x", "{} {}", "1 2", "01", "-01", "00", "-", "--1", "- 1", "+1", "1.", ".5", "1.e5", "1e",
            "1e+", "1e-", "0x10", "1f", "tru", "truex", "True", "nul", "NULL", "nan", "NAN", "inf", "infinity",
            "-NaN", "+Infinity", "-Inf", "Infinityx", "\"abc", "\"a\\x\"", "\"\\u12\"", "\"\\u12g4\"", "\"\\\"",
            "\"\\", "\"\\'\"", "// comment", "[1]//", "/* c */ 1", "undefined", "{\"a\":undefined}", "x", "@",
            "{\"a\":[}", "{\"a\":{]}", "[{]}", "\"a\" \"b\"", "{\"a\":1,,\"b\":2}", "[1,,2]", "{:1}", "{1:2}",
            "{\"a\"::1}"
    })
    void rejectsInvalidJson(String json) {
        Outcome outcome = scan(json);
        assertEquals(Outcome.INVALID, outcome, json);
        assertTrue(scanner.errorReason() != null && !scanner.errorReason().isEmpty());
        assertTrue(scanner.errorPosition() >= 0 && scanner.errorPosition() <= utf8(json).length,
                () -> json + " at " + scanner.errorPosition());
        assertNull(scanner.type());
        assertNull(scanner.stream());
    }

    @Test
    void rejectsControlCharactersInsideStringsButAcceptsThemAsEscapes() {
        for (int c = 0; c < 0x20; c++) {
            byte[] raw = {'"', 'a', (byte) c, 'b', '"'};
            assertEquals(Outcome.INVALID, scan(raw), "raw byte " + c);
            assertEquals(SingerLineScanner.CONTROL_CHARACTER, scanner.errorReason());
            assertEquals(2, scanner.errorPosition());
            assertEquals(Outcome.VALUE, scan(String.format("\"a\\u%04xb\"", c)), "escaped " + c);
        }
    }

    @Test
    void rejectsGarbage() {
        assertEquals(Outcome.INVALID, scan(new byte[] {0}));
        assertEquals(Outcome.INVALID, scan(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'}), "BOM");
        assertEquals(Outcome.INVALID, scan(new byte[] {'{', '}', 0}));
        assertEquals(Outcome.INVALID, scan(new byte[] {(byte) 0xFF, (byte) 0xFE}));
        assertEquals(Outcome.INVALID, scan("2026-11-29 15:09:22,655 | INFO | tap-csv | Beginning sync"));
        assertEquals(Outcome.INVALID, scan("Traceback (most recent call last):"));
        assertEquals(Outcome.INVALID, scan("{\"type\":\"RECORD\"}\u000b"), "vertical tab is not JSON whitespace");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t", "\r", " \t \r "})
    void blankLines(String line) {
        assertEquals(Outcome.BLANK, scan(line));
        assertNull(scanner.type());
        assertNull(scanner.errorReason());
    }

    @Test
    void reportsWhereAndWhyALineIsInvalid() {
        assertEquals(Outcome.INVALID, scan("{\"type\":\"REC"));
        assertEquals(SingerLineScanner.UNTERMINATED_STRING, scanner.errorReason());
        assertEquals(12, scanner.errorPosition());

        assertEquals(Outcome.INVALID, scan("{\"a\": 1} trailing"));
        assertEquals(SingerLineScanner.TRAILING_CHARACTERS, scanner.errorReason());
        assertEquals(9, scanner.errorPosition());

        assertEquals(Outcome.INVALID, scan("[1, 2"));
        assertEquals(SingerLineScanner.UNEXPECTED_END, scanner.errorReason());
        assertEquals(5, scanner.errorPosition());

        assertEquals(Outcome.INVALID, scan("{\"a\" 1}"));
        assertEquals(SingerLineScanner.EXPECTED_COLON, scanner.errorReason());
        assertEquals(5, scanner.errorPosition());

        assertEquals(Outcome.INVALID, scan("[1.]"));
        assertEquals(SingerLineScanner.INVALID_NUMBER, scanner.errorReason());
        assertEquals(3, scanner.errorPosition());
    }

    @Test
    void positionsAreRelativeToTheOffset() {
        byte[] buffer = utf8("xxxx{\"a\":tru}yyyy");
        assertEquals(Outcome.INVALID, scanner.scan(buffer, 4, 9));
        assertEquals(SingerLineScanner.INVALID_LITERAL, scanner.errorReason());
        assertEquals(5, scanner.errorPosition());
        assertEquals(Outcome.OBJECT, scanner.scan(utf8("xx{\"type\":\"STATE\"}yy"), 2, 16));
        assertEquals("STATE", scanner.type());
    }

    @Test
    void rejectsARangeOutsideTheArray() {
        assertThrows(IndexOutOfBoundsException.class, () -> scanner.scan(new byte[4], 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> scanner.scan(new byte[4], -1, 2));
    }

    @Test
    void nestingUpToTheLimitIsAcceptedAndDeeperIsRejected() {
        int depth = SingerLineScanner.MAX_DEPTH;
        assertEquals(Outcome.VALUE, scan("[".repeat(depth) + "]".repeat(depth)));
        assertEquals(Outcome.OBJECT, scan("{\"a\":".repeat(depth) + "1" + "}".repeat(depth)));
        assertEquals(Outcome.INVALID, scan("[".repeat(depth + 1) + "]".repeat(depth + 1)));
        assertEquals(SingerLineScanner.TOO_DEEP, scanner.errorReason());
    }

    @Test
    void acceptsNonUtf8BytesInsideStrings() {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        line.writeBytes(utf8("{\"type\":\"RECORD\",\"stream\":\"caf"));
        line.write(0xE9); // Latin-1 "é": not UTF-8
        line.writeBytes(utf8("\",\"record\":{\"v\":\""));
        line.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFE, (byte) 0xC3, (byte) 0x80, (byte) 0xED, (byte) 0xA0, (byte) 0x80});
        line.writeBytes(utf8("\",\"k\\u00e9"));
        line.write(0xFF);
        line.writeBytes(utf8("\":1}}"));
        assertEquals(Outcome.OBJECT, scan(line.toByteArray()));
        assertEquals("RECORD", scanner.type());
        assertEquals("caf\uFFFD", scanner.stream());
    }

    // ---- Extraction --------------------------------------------------------------------------

    @Test
    void extractsTypeAndStreamFromCompactAndSpacedJson() {
        assertEquals(Outcome.OBJECT, scan("{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{}}"));
        assertSame(MessageType.RECORD.wireName(), scanner.type());
        assertEquals("orders", scanner.stream());

        assertEquals(Outcome.OBJECT, scan("{ \"stream\" : \"orders\" , \"type\" :\t\"SCHEMA\" }"));
        assertSame(MessageType.SCHEMA, scanner.messageType());
        assertEquals("orders", scanner.stream());

        assertEquals(Outcome.OBJECT, scan("{\"type\": \"ACTIVATE_VERSION\", \"stream\": \"o\", \"version\": 1}"));
        assertSame(MessageType.ACTIVATE_VERSION, scanner.messageType());
        assertEquals(Outcome.OBJECT, scan("{\"type\":\"BATCH\",\"stream\":\"o\",\"encoding\":{}}"));
        assertSame(MessageType.BATCH, scanner.messageType());
        assertEquals(Outcome.OBJECT, scan("{\"type\":\"STATE\",\"value\":{\"bookmarks\":{}}}"));
        assertSame(MessageType.STATE, scanner.messageType());
        assertNull(scanner.stream());
    }

    @Test
    void unknownTypesAreOtherButKeepTheirName() {
        assertEquals(Outcome.OBJECT, scan("{\"type\":\"METRIC\",\"value\":1}"));
        assertEquals(MessageType.OTHER, scanner.messageType());
        assertEquals("METRIC", scanner.type());
        String first = scanner.type();
        scan("{\"type\":\"METRIC\",\"value\":2}");
        assertSame(first, scanner.type(), "a repeated unknown type is not decoded again");

        scan("{\"type\":\"record\",\"stream\":\"s\"}");
        assertEquals(MessageType.OTHER, scanner.messageType(), "types are case-sensitive");
        assertEquals("record", scanner.type());
        scan("{\"type\":\"\",\"stream\":\"s\"}");
        assertEquals("", scanner.type());
    }

    @Test
    void escapesInStreamAndTypeAreDecoded() {
        scan("{\"type\":\"RECORD\",\"stream\":\"we\\\"ird\\\\na\\/me\\u00e9\\ud83d\\ude00\\t\"}");
        assertEquals("we\"ird\\na/me\u00e9\ud83d\ude00\t", scanner.stream());
        scan("{\"type\":\"\\u0052ECORD\",\"stream\":\"s\"}");
        assertSame(MessageType.RECORD, scanner.messageType());
        assertSame(MessageType.RECORD.wireName(), scanner.type());
        scan("{\"type\":\"\\u004dETRIC\"}");
        assertEquals("METRIC", scanner.type());
        scan("{\"type\":\"RECORD\",\"stream\":\"caf\u00e9 \u65e5\u672c \ud83d\ude00\"}");
        assertEquals("caf\u00e9 \u65e5\u672c \ud83d\ude00", scanner.stream());
    }

    @Test
    void escapedKeysAreComparedDecoded() {
        scan("{\"\\u0074ype\":\"STATE\",\"str\\u0065am\":\"s\",\"\\/type\":\"RECORD\"}");
        assertSame(MessageType.STATE, scanner.messageType());
        assertEquals("s", scanner.stream());
        scan("{\"typ\\u0065\\u0020\":\"RECORD\",\"Type\":\"RECORD\",\"types\":\"RECORD\",\"\\u0074\\u0079\\u0070\\u0065\":\"BATCH\"}");
        assertSame(MessageType.BATCH, scanner.messageType());
    }

    @Test
    void nestedTypeAndStreamKeysAreNotPickedUp() {
        scan("{\"record\":{\"type\":\"RECORD\",\"stream\":\"inner\"},\"value\":[{\"type\":\"SCHEMA\"}]}");
        assertNull(scanner.type());
        assertNull(scanner.stream());

        scan("{\"value\":{\"type\":\"RECORD\",\"stream\":\"inner\"},\"type\":\"STATE\"}");
        assertSame(MessageType.STATE, scanner.messageType());
        assertNull(scanner.stream());

        scan("{\"schema\":{\"type\":\"object\",\"properties\":{\"stream\":{\"type\":\"string\"}}},\"type\":\"SCHEMA\",\"stream\":\"s\"}");
        assertSame(MessageType.SCHEMA, scanner.messageType());
        assertEquals("s", scanner.stream());

        scan("[{\"type\":\"RECORD\",\"stream\":\"s\"}]");
        assertNull(scanner.type());
        assertNull(scanner.stream());

        scan("{\"record\":{\"a\":\"type\",\"b\":\"stream\"},\"c\":[\"type\",\"RECORD\"]}");
        assertNull(scanner.type());
        assertNull(scanner.stream());
    }

    @Test
    void nonStringValuesMeanAbsentAndTheLastDuplicateWins() {
        scan("{\"type\":1,\"stream\":null}");
        assertNull(scanner.type());
        assertSame(MessageType.OTHER, scanner.messageType());
        assertNull(scanner.stream());

        scan("{\"type\":{\"type\":\"RECORD\"},\"stream\":[\"s\"]}");
        assertNull(scanner.type());
        assertNull(scanner.stream());

        scan("{\"type\":\"RECORD\",\"stream\":\"a\",\"type\":\"STATE\",\"stream\":\"b\"}");
        assertSame(MessageType.STATE, scanner.messageType());
        assertEquals("b", scanner.stream());

        scan("{\"type\":\"RECORD\",\"stream\":\"a\",\"type\":null,\"stream\":true}");
        assertNull(scanner.type());
        assertNull(scanner.stream());
    }

    @Test
    void resultsAreResetByTheNextScan() {
        scan("{\"type\":\"RECORD\",\"stream\":\"s\"}");
        scan("{\"type\":\"RECORD\",\"stream\":\"s\"");
        assertNull(scanner.type());
        assertNull(scanner.stream());
        assertSame(MessageType.OTHER, scanner.messageType());
        scan("{}");
        assertNull(scanner.errorReason());
        assertNull(scanner.type());
    }

    @Test
    void typeAndStreamAreOnlyExtractedFromValidLines() {
        assertEquals(Outcome.INVALID, scan("{\"type\":\"RECORD\",\"stream\":\"s\",\"record\":{\"a\":1}"));
        assertNull(scanner.type());
        assertNull(scanner.stream());
    }

    // ---- Caching and allocation --------------------------------------------------------------

    @Test
    void repeatedStreamNamesAreTheSameInstance() {
        scan("{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"id\":1}}");
        String orders = scanner.stream();
        scan("{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"id\":2}}");
        assertSame(orders, scanner.stream());

        // Many interleaved streams: the second round returns the instances of the first.
        List<String> first = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            scan("{\"type\":\"RECORD\",\"stream\":\"table_" + i + "\"}");
            first.add(scanner.stream());
        }
        int same = 0;
        for (int i = 0; i < 100; i++) {
            scan("{\"type\":\"RECORD\",\"stream\":\"table_" + i + "\",\"record\":{}}");
            assertEquals("table_" + i, scanner.stream());
            if (scanner.stream() == first.get(i)) {
                same++;
            }
        }
        // A direct-mapped cache may evict on collisions; most names must still hit.
        assertTrue(same >= 80, "cache hits: " + same);
    }

    @Test
    void escapedAndUnescapedSpellingsOfAStreamDecodeAlike() {
        scan("{\"stream\":\"caf\u00e9\"}");
        String plain = scanner.stream();
        scan("{\"stream\":\"caf\\u00e9\"}");
        assertEquals(plain, scanner.stream());
        assertNotSame(plain, scanner.stream());
    }

    @Test
    void longStreamNamesAreDecodedWithoutCaching() {
        String name = "s".repeat(SingerLineScanner.MAX_CACHED_NAME_BYTES + 1);
        scan("{\"stream\":\"" + name + "\"}");
        assertEquals(name, scanner.stream());
        scan("{\"stream\":\"" + name + "\"}");
        assertEquals(name, scanner.stream());
    }

    @Test
    void scanningKnownTypesAndRepeatedStreamsAllocatesNothing() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "HotSpot allocation counter");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        List<byte[]> lines = new ArrayList<>();
        for (String fixture : Fixtures.TAP_OUTPUTS) {
            lines.addAll(Fixtures.singerLines(fixture));
        }
        // Prime the caches (first sight of each stream name decodes it once).
        for (byte[] line : lines) {
            scan(line);
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        int objects = 0;
        for (int round = 0; round < 2_000; round++) {
            for (byte[] line : lines) {
                if (scanner.scan(line, 0, line.length) == Outcome.OBJECT) {
                    objects++;
                }
            }
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertEquals(2_000 * lines.size(), objects);
        // Over 90,000 scans: anything per line would be megabytes.
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
    }
}
