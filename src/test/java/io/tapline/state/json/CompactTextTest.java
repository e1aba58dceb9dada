package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.state.json.PythonJson.Layout;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link CompactText} prints exactly what the tree path prints ({@code PythonJson.write(parse(text),
 * COMPACT)}), or refuses (-1) where a token stream cannot.
 */
class CompactTextTest {

    @Provide
    Arbitrary<JsonNode> trees() {
        return JsonTrees.trees(4);
    }

    @Property(tries = 500)
    void theCompactTextOfAnyStoredObjectIsTheTreesCompactText(@ForAll("trees") JsonNode tree, @ForAll Layout layout)
            throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.set("singer_state", tree);
        String stored = PythonJson.write(root, layout);
        String expected = PythonJson.write(PythonJson.parse(stored), Layout.COMPACT);
        assertEquals(expected.length(), CompactText.length(stored));
        assertEquals(expected, compact(stored));
    }

    @Test
    void textsNotWrittenByTaplineArePrintedAsTheTreePrintsThem() throws IOException {
        String text = " {\"b\" : 1e5 , \"a\":[ -0, 1.50, 12345678901234567890123, NaN, -Infinity, \"\\u00e9\\/\"],"
                + " \"c\": {}, \"d\": [], \"e\": [[{}], {\"x\": null, \"y\": true, \"z\": false}]}\n";
        String expected = PythonJson.write(PythonJson.parse(text), Layout.COMPACT);
        assertEquals("{\"b\":100000.0,\"a\":[0,1.5,12345678901234567890123,NaN,-Infinity,\"\\u00e9/\"],\"c\":{},"
                + "\"d\":[],\"e\":[[{}],{\"x\":null,\"y\":true,\"z\":false}]}", expected);
        assertEquals(expected.length(), CompactText.length(text));
        assertEquals(expected, compact(text));
    }

    @Test
    void whatOnlyTheTreeCanPrintIsRefused() {
        assertEquals(-1, CompactText.length("{\"a\": 1, \"b\": 2, \"a\": 3}"), "repeated key: first place, last value");
        assertEquals(-1, CompactText.length("{\"x\": {\"a\": 1, \"a\": 1}}"), "repeated key in a nested object");
        assertEquals(-1, CompactText.length("[1, 2]"), "not an object");
        assertEquals(-1, CompactText.length("{\"a\": 1} {}"), "extra data");
        assertEquals(-1, CompactText.length("{\"a\": +Infinity}"), "not Python's JSON");
        assertEquals(-1, CompactText.length("{\"a\": 1"), "cut short");
        assertEquals(-1, CompactText.length("\uFEFF{}"), "byte order mark");
        assertEquals(-1, CompactText.length(""), "empty");
        // the same key in two sibling objects is no repetition
        assertEquals("{\"a\":{\"k\":1},\"b\":{\"k\":2}}".length(), CompactText.length("{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}"));
    }

    @Test
    void aLargeStateIsPrintedInPieces() throws IOException {
        StringBuilder sb = new StringBuilder("{\"singer_state\": {\"bookmarks\": {");
        for (int i = 0; i < 20_000; i++) {
            sb.append(i == 0 ? "" : ", ").append("\"stream_").append(i).append("\": {\"lsn\": ")
                    .append("1234567890123456789").append(i).append(", \"at\": \"2024-01-0").append(i % 9 + 1).append("\"}");
        }
        String text = sb.append("}}}").toString();
        String expected = PythonJson.write(PythonJson.parse(text), Layout.COMPACT);
        assertEquals(expected.length(), CompactText.length(text));
        assertEquals(expected, compact(text));
    }

    private static String compact(String text) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompactText.write(text, out);
        return out.toString(StandardCharsets.US_ASCII);
    }
}
