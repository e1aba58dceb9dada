package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.tapline.state.json.PythonJson.Layout;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StoredJson#find} gives what parsing the whole text and walking the tree gives, on random
 * texts whose objects repeat keys from a small set (so paths hit, miss, and meet repeated keys).
 */
class StoredJsonTest {

    private static final List<String> KEYS = List.of("singer_state", "bookmarks", "s", "k");

    /** The tree path: the parsed root if it is an object (else {@code {}}), then {@code path()} per key. */
    private static JsonNode viaTree(String text, List<String> path) {
        JsonNode root = PythonJson.parse(text);
        JsonNode n = root.isObject() ? root : MissingNode.getInstance();
        for (String key : path) {
            n = n.path(key);
        }
        return n;
    }

    /** JSON text: objects with keys from {@link #KEYS}, repeated at will, around random leaves. */
    private static Arbitrary<String> texts(int depth) {
        Arbitrary<String> leaf = Arbitraries.oneOf(JsonTrees.trees(2), JsonTrees.scalars())
                .flatMap(t -> Arbitraries.of(Layout.values()).map(l -> PythonJson.write(t, l)));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<String> member = Arbitraries.of(KEYS).flatMap(k -> texts(depth - 1)
                .map(v -> PythonJson.write(com.fasterxml.jackson.databind.node.TextNode.valueOf(k), Layout.COMPACT)
                        + ": " + v));
        Arbitrary<String> object = member.list().ofMaxSize(4).map(ms -> "{" + String.join(", ", ms) + "}");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, object), net.jqwik.api.Tuple.of(1, leaf));
    }

    @Provide
    Arbitrary<String> documents() {
        return texts(3);
    }

    @Provide
    Arbitrary<List<String>> paths() {
        return Arbitraries.of(KEYS).list().ofMinSize(1).ofMaxSize(4);
    }

    @Property(tries = 1000)
    void findGivesWhatTheTreeGives(@ForAll("documents") String text, @ForAll("paths") List<String> path) {
        JsonNode expected = viaTree(text, path);
        JsonNode found = StoredJson.find(text, path.toArray(String[]::new));
        assertEquals(expected.isMissingNode(), found.isMissingNode(), text);
        assertEquals(expected, found, text);
        if (!expected.isMissingNode()) {
            assertEquals(PythonJson.write(expected, Layout.COMPACT), PythonJson.write(found, Layout.COMPACT));
            assertEquals(JsonTrees.keyOrder(expected), JsonTrees.keyOrder(found));
        }
    }

    @Test
    void theLastOfRepeatedKeysCountsOnEveryLevel() {
        String text = "{\"singer_state\": {\"bookmarks\": {\"s\": 1}}, \"singer_state\": {\"bookmarks\": {\"t\": 2}}}";
        assertTrue(StoredJson.find(text, "singer_state", "bookmarks", "s").isMissingNode());
        assertEquals("2", StoredJson.find(text, "singer_state", "bookmarks", "t").toString());
        assertTrue(StoredJson.find("{\"a\": {\"b\": 1}, \"a\": 5}", "a", "b").isMissingNode());
        assertEquals("null", StoredJson.find("{\"a\": {\"b\": 1}, \"a\": {\"b\": null}}", "a", "b").toString());
    }

    @Test
    void aRootThatIsNotAnObjectHoldsNothing() {
        assertTrue(StoredJson.find("[{\"a\": 1}]", "a").isMissingNode());
        assertTrue(StoredJson.find("null", "a").isMissingNode());
        assertTrue(StoredJson.find("{\"a\": [1]}", "a", "0").isMissingNode());
    }

    @Test
    void textsPythonCannotReadFailAsTheParserFails() {
        String digits = "1".repeat(PythonJson.MAX_INT_DIGITS + 1);
        for (String bad : List.of("", "{", "{} x", "{\"a\": 1,}", "{\"z\": +Infinity, \"a\": 1}", "{\"z\": -INF}",
                "{\"z\": " + digits + ", \"a\": 1}", "{\"z\": [" + digits + "], \"a\": 1}", "\uFEFF{}",
                "{\"z\": \"a\u0001b\", \"a\": 1}", "{\"z\": 'x'}",
                "{\"z\": " + "[".repeat(PythonJson.MAX_DEPTH + 1) + "]".repeat(PythonJson.MAX_DEPTH + 1) + ", \"a\": 1}")) {
            assertThrows(InvalidJsonException.class, () -> PythonJson.parse(bad), bad);
            assertThrows(InvalidJsonException.class, () -> StoredJson.find(bad, "a"), bad);
        }
    }

    @Test
    void nonFiniteAndLargeNumbersReadAsTheParserReadsThem() {
        String text = "{\"a\": {\"n\": NaN, \"i\": -Infinity, \"big\": 123456789012345678901234567890, \"f\": 1e400}}";
        assertEquals("{\"n\":NaN,\"i\":-Infinity,\"big\":123456789012345678901234567890,\"f\":Infinity}",
                PythonJson.write(StoredJson.find(text, "a"), Layout.COMPACT));
    }
}
