package io.tapline.state.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.state.json.JsonTrees;
import io.tapline.state.json.PythonJson.Layout;
import io.tapline.state.json.PythonJson;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StateRules}: expected merge results are what Meltano 4.2.2's {@code merge(src, dest)}
 * (copied verbatim into a python3 session) printed for the same inputs.
 */
class StateRulesTest {

    private static ObjectNode obj(String json) {
        return (ObjectNode) PythonJson.parse(json);
    }

    private static String merge(String src, String dest) {
        return PythonJson.write(StateRules.merge(obj(src), obj(dest)), Layout.DEFAULT);
    }

    @Nested
    class Merge {

        /** meltano-state.md §1e, the worked example. */
        @Test
        void specExample() {
            assertEquals("{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 2, \"rk\": \"x\"}, \"b\": {\"v\": 1}}, "
                    + "\"currently_syncing\": null}}", merge(
                    "{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 2}}, \"currently_syncing\": null}}",
                    "{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 1, \"rk\": \"x\"}, \"b\": {\"v\": 1}}, "
                            + "\"currently_syncing\": \"b\"}}"));
        }

        @Test
        void specExampleAsCompactStateGet() {
            ObjectNode merged = StateRules.merge(
                    obj("{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 2}}, \"currently_syncing\": null}}"),
                    obj("{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 1, \"rk\": \"x\"}, \"b\": {\"v\": 1}}, "
                            + "\"currently_syncing\": \"b\"}}"));
            assertEquals("{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":2,\"rk\":\"x\"},\"b\":{\"v\":1}},"
                    + "\"currently_syncing\":null}}", PythonJson.write(merged, Layout.COMPACT));
        }

        @Test
        void keyOrderIsDestinationsThenNewKeysInSourceOrder() {
            assertEquals("{\"a\": {\"x\": 1, \"w\": 0, \"y\": 2}, \"k\": 0, \"z\": 1, \"n\": 3}",
                    merge("{\"z\": 1, \"a\": {\"y\": 2, \"x\": 1}, \"n\": 3}", "{\"a\": {\"x\": 0, \"w\": 0}, \"k\": 0}"));
        }

        @Test
        void listsAreReplacedWhole() {
            assertEquals("{\"l\": [3]}", merge("{\"l\": [3]}", "{\"l\": [1, 2]}"));
            assertEquals("{\"a\": {\"b\": [1, {\"c\": 1}]}}",
                    merge("{\"a\": {\"b\": [1, {\"c\": 1}]}}", "{\"a\": {\"b\": [{\"d\": 2}]}}"));
        }

        @Test
        void nullOverwrites() {
            assertEquals("{\"s\": null}", merge("{\"s\": null}", "{\"s\": {\"a\": 1}}"));
            assertEquals("{\"c\": null, \"d\": 1}", merge("{\"c\": null}", "{\"c\": \"b\", \"d\": 1}"));
        }

        @Test
        void scalarOverObjectReplacesIt() {
            assertEquals("{\"s\": 5}", merge("{\"s\": 5}", "{\"s\": {\"a\": 1}}"));
            assertEquals("{\"s\": \"x\"}", merge("{\"s\": \"x\"}", "{\"s\": {}}"));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "{\"s\": \"x\"}       | {\"s\": \"x\"}",
                "{\"s\": null}        | {\"s\": null}",
                "{\"s\": [1, 2]}      | {\"s\": [1, 2]}",
                "{\"s\": 0}           | {\"s\": 0}",
                "{\"s\": false}       | {\"s\": false}",
        })
        void emptyObjectOverNonObjectLeavesItUnchanged(String dest, String expected) {
            assertEquals(expected, merge("{\"s\": {}}", dest));
        }

        @Test
        void emptyObjectOverMissingKeyCreatesIt() {
            assertEquals("{\"s\": {}}", merge("{\"s\": {}}", "{}"));
            assertEquals("{\"x\": 1, \"s\": {\"t\": {}}}", merge("{\"s\": {\"t\": {}}}", "{\"x\": 1}"));
        }

        @Test
        void emptyInputs() {
            assertEquals("{}", merge("{}", "{}"));
            assertEquals("{\"a\": 1}", merge("{}", "{\"a\": 1}"));
            assertEquals("{\"a\": {\"b\": 1}}", merge("{\"a\": {\"b\": 1}}", "{}"));
        }

        @Test
        void conflictAtTopLevel() {
            StateConflictException e = assertThrows(StateConflictException.class,
                    () -> merge("{\"l\": {\"a\": 1}}", "{\"l\": [1, 2]}"));
            assertEquals("l", e.path());
            assertEquals(JsonNodeType.ARRAY, e.destinationType());
            assertEquals("Cannot merge an object into an array at l (Meltano's merge fails here too)", e.getMessage());
        }

        @Test
        void conflictNested() {
            StateConflictException e = assertThrows(StateConflictException.class, () -> merge(
                    "{\"singer_state\": {\"bookmarks\": {\"users\": {\"x\": 1}}}}",
                    "{\"singer_state\": {\"bookmarks\": {\"users\": null}}}"));
            assertEquals("singer_state.bookmarks.users", e.path());
            assertEquals(JsonNodeType.NULL, e.destinationType());
        }

        @Test
        void conflictWithNestedEmptyObject() {
            // Python: merge({"a": {}}, 5) -> AttributeError; only a directly empty object is tolerated
            StateConflictException e = assertThrows(StateConflictException.class,
                    () -> merge("{\"s\": {\"a\": {}}}", "{\"s\": 5}"));
            assertEquals("s", e.path());
            assertEquals(JsonNodeType.NUMBER, e.destinationType());
        }

        @Test
        void conflictDeeperThanTheTop() {
            StateConflictException e = assertThrows(StateConflictException.class,
                    () -> merge("{\"a\": {\"b\": {\"c\": 1}}}", "{\"a\": {\"b\": 7}}"));
            assertEquals("a.b", e.path());
        }

        @Test
        void conflictPathQuotesOddKeys() {
            StateConflictException e = assertThrows(StateConflictException.class,
                    () -> merge("{\"a.b\": {\"\u00e9\": {\"\": {\"x\": 1}}}}", "{\"a.b\": {\"\u00e9\": {\"\": true}}}"));
            assertEquals("[\"a.b\"][\"\\u00e9\"][\"\"]", e.path());
            assertEquals(JsonNodeType.BOOLEAN, e.destinationType());
        }

        @Test
        void inputsAreNotModifiedAndNotShared() {
            ObjectNode src = obj("{\"a\": {\"b\": [1], \"c\": {\"d\": 1}}, \"new\": {\"x\": [2]}}");
            ObjectNode dest = obj("{\"a\": {\"b\": [0], \"e\": 1}, \"old\": {\"y\": 1}}");
            ObjectNode srcCopy = src.deepCopy();
            ObjectNode destCopy = dest.deepCopy();
            ObjectNode merged = StateRules.merge(src, dest);
            assertEquals(srcCopy, src);
            assertEquals(destCopy, dest);
            assertNotSame(src.get("new"), merged.get("new"));
            assertNotSame(src.get("a").get("b"), merged.get("a").get("b"));
            assertNotSame(dest.get("old"), merged.get("old"));
            ((ObjectNode) merged.get("old")).put("y", 2);
            ((com.fasterxml.jackson.databind.node.ArrayNode) merged.get("new").get("x")).add(3);
            assertEquals(srcCopy, src);
            assertEquals(destCopy, dest);
        }

        @Test
        void inputsAreNotModifiedWhenMergeFails() {
            ObjectNode src = obj("{\"a\": 1, \"b\": {\"c\": 1}}");
            ObjectNode dest = obj("{\"a\": 0, \"b\": 5}");
            assertThrows(StateConflictException.class, () -> StateRules.merge(src, dest));
            assertEquals(obj("{\"a\": 0, \"b\": 5}"), dest);
        }

        @Test
        void nullArgumentsAreRejected() {
            assertThrows(NullPointerException.class, () -> StateRules.merge(null, obj("{}")));
            assertThrows(NullPointerException.class, () -> StateRules.merge(obj("{}"), null));
        }
    }

    @Nested
    class Validate {

        @ParameterizedTest
        @ValueSource(strings = {"{\"singer_state\": {}}", "{\"singer_state\": null}", "{\"singer_state\": 1}",
                "{\"x\": 1, \"singer_state\": {\"bookmarks\": {}}}", "{\"singer_state\": []}"})
        void acceptsATopLevelSingerStateKey(String json) {
            assertDoesNotThrow(() -> StateRules.validate(PythonJson.parse(json)));
        }

        @ParameterizedTest
        @ValueSource(strings = {"{}", "{\"bookmarks\": {}}", "{\"state\": {\"singer_state\": {}}}", "[\"singer_state\"]",
                "\"singer_state\"", "null", "1", "{\"Singer_State\": {}}"})
        void rejectsEverythingElseWithMeltanosMessage(String json) {
            InvalidStateException e = assertThrows(InvalidStateException.class,
                    () -> StateRules.validate(PythonJson.parse(json)));
            assertEquals("singer_state not found in top level of provided state. "
                    + "State must be valid JSON with a top-level 'singer_state' key.", e.getMessage());
        }

        @Test
        void rejectsJavaNull() {
            assertThrows(InvalidStateException.class, () -> StateRules.validate(null));
        }
    }

    @Nested
    class Truthy {

        @ParameterizedTest
        @ValueSource(strings = {"{}", "[]", "\"\"", "0", "0.0", "-0.0", "false", "null", "0e10"})
        void falsy(String json) {
            assertFalse(StateRules.truthy(PythonJson.parse(json)));
        }

        @ParameterizedTest
        @ValueSource(strings = {"{\"a\": null}", "[null]", "\" \"", "1", "-1", "0.5", "true", "NaN", "Infinity",
                "\"0\"", "\"false\"", "123456789012345678901234567890", "{\"bookmarks\": {}}"})
        void truthy(String json) {
            assertTrue(StateRules.truthy(PythonJson.parse(json)));
        }

        @Test
        void otherNodeKinds() {
            assertFalse(StateRules.truthy(null));
            assertFalse(StateRules.truthy(MissingNode.getInstance()));
            assertFalse(StateRules.truthy(LongNode.valueOf(0)));
            assertTrue(StateRules.truthy(LongNode.valueOf(1L << 40)));
            assertFalse(StateRules.truthy(BigIntegerNode.valueOf(BigInteger.ZERO)));
            assertFalse(StateRules.truthy(DecimalNode.valueOf(new BigDecimal("0.000"))));
            assertTrue(StateRules.truthy(DecimalNode.valueOf(new BigDecimal("0.001"))));
            assertFalse(StateRules.truthy(IntNode.valueOf(0)));
            assertTrue(StateRules.truthy(DoubleNode.valueOf(Double.MIN_VALUE)));
            assertFalse(StateRules.truthy(TextNode.valueOf("")));
            assertFalse(StateRules.truthy(JsonNodeFactory.instance.binaryNode(new byte[0])));
            assertTrue(StateRules.truthy(JsonNodeFactory.instance.binaryNode(new byte[] {0})));
        }
    }

    // ---- properties ------------------------------------------------------------------------

    @Provide
    Arbitrary<ObjectNode> states() {
        return JsonTrees.stateObjects(3);
    }

    @Property(tries = 500)
    void mergeOntoEmptyCopiesTheSource(@ForAll("states") ObjectNode src) {
        ObjectNode merged = StateRules.merge(src, JsonNodeFactory.instance.objectNode());
        assertEquals(PythonJson.write(src, Layout.DEFAULT), PythonJson.write(merged, Layout.DEFAULT));
    }

    @Property(tries = 500)
    void mergingEmptyChangesNothing(@ForAll("states") ObjectNode dest) {
        ObjectNode merged = StateRules.merge(JsonNodeFactory.instance.objectNode(), dest);
        assertEquals(PythonJson.write(dest, Layout.DEFAULT), PythonJson.write(merged, Layout.DEFAULT));
    }

    @Property(tries = 500)
    void mergeWithItselfIsIdentity(@ForAll("states") ObjectNode state) {
        assertEquals(PythonJson.write(state, Layout.DEFAULT),
                PythonJson.write(StateRules.merge(state, state), Layout.DEFAULT));
    }

    @Property(tries = 1000)
    void mergeFollowsTheRulesOrFailsOnlyOnAConflict(@ForAll("states") ObjectNode src,
                                                    @ForAll("states") ObjectNode dest) {
        String srcBefore = PythonJson.write(src, Layout.DEFAULT);
        String destBefore = PythonJson.write(dest, Layout.DEFAULT);
        ObjectNode merged;
        try {
            merged = StateRules.merge(src, dest);
        } catch (StateConflictException e) {
            assertTrue(hasConflict(src, dest), e.getMessage());
            return;
        } finally {
            assertEquals(srcBefore, PythonJson.write(src, Layout.DEFAULT));
            assertEquals(destBefore, PythonJson.write(dest, Layout.DEFAULT));
        }
        assertFalse(hasConflict(src, dest));
        assertEquals(PythonJson.write(reference(src, dest.deepCopy()), Layout.DEFAULT),
                PythonJson.write(merged, Layout.DEFAULT));
        // keys: dest's first, in order, then src's new ones
        List<String> expectedKeys = new ArrayList<>();
        dest.fieldNames().forEachRemaining(expectedKeys::add);
        src.fieldNames().forEachRemaining(k -> {
            if (!dest.has(k)) {
                expectedKeys.add(k);
            }
        });
        List<String> keys = new ArrayList<>();
        merged.fieldNames().forEachRemaining(keys::add);
        assertEquals(expectedKeys, keys);
    }

    /** A line-by-line port of Meltano's merge, mutating dest (only called when no conflict). */
    private static ObjectNode reference(JsonNode src, ObjectNode dest) {
        src.properties().forEach(e -> {
            if (e.getValue().isObject()) {
                JsonNode node = dest.get(e.getKey());
                if (node == null) {
                    node = dest.putObject(e.getKey());
                }
                if (node.isObject()) {
                    reference(e.getValue(), (ObjectNode) node);
                }
            } else {
                dest.set(e.getKey(), e.getValue().deepCopy());
            }
        });
        return dest;
    }

    private static boolean hasConflict(JsonNode src, JsonNode dest) {
        for (var e : src.properties()) {
            JsonNode d = dest.get(e.getKey());
            if (e.getValue().isObject() && d != null) {
                if (!d.isObject() && !e.getValue().isEmpty()) {
                    return true;
                }
                if (d.isObject() && hasConflict(e.getValue(), d)) {
                    return true;
                }
            }
        }
        return false;
    }
}
