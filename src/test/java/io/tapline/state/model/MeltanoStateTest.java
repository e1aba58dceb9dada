package io.tapline.state.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.state.json.InvalidJsonException;
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
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MeltanoState}: meltano-state.md §1a-§1e. */
class MeltanoStateTest {

    private static ObjectNode obj(String json) {
        return (ObjectNode) PythonJson.parse(json);
    }

    private static String compact(JsonNode node) {
        return PythonJson.write(node, Layout.COMPACT);
    }

    private static final String FULL = "{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 1, \"rk\": \"x\"}, "
            + "\"b\": {\"v\": 1}}, \"currently_syncing\": \"b\"}}";
    private static final String PARTIAL = "{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 2}}, "
            + "\"currently_syncing\": null}}";

    @Nested
    class Construction {

        @Test
        void emptyRecord() {
            MeltanoState empty = MeltanoState.empty();
            assertEquals("{\"completed\": {}, \"partial\": {}}", empty.toStateJson());
            assertFalse(empty.isComplete());
            assertEquals("{}", compact(empty.merged()));
            assertNull(empty.singerState());
            assertEquals(Optional.empty(), empty.tapStateFile());
        }

        @Test
        void nullSidesBecomeEmptyObjects() {
            MeltanoState s = new MeltanoState(null, obj(PARTIAL));
            assertEquals("{}", compact(s.completed()));
            assertEquals("{\"completed\": {}, \"partial\": " + PARTIAL + "}", s.toStateJson());
        }

        @Test
        void constructorCopiesItsArguments() {
            ObjectNode completed = obj(FULL);
            MeltanoState s = new MeltanoState(completed, null);
            completed.put("extra", 1);
            ((ObjectNode) completed.get("singer_state")).removeAll();
            assertEquals("{\"completed\": " + FULL + ", \"partial\": {}}", s.toStateJson());
        }

        @Test
        void accessorsReturnCopies() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            s.completed().removeAll();
            s.partial().put("x", 1);
            ((ObjectNode) s.merged().get("singer_state")).removeAll();
            assertEquals("{\"completed\": " + FULL + ", \"partial\": " + PARTIAL + "}", s.toStateJson());
        }

        @Test
        void equalityIsByContent() {
            assertEquals(new MeltanoState(obj(FULL), obj(PARTIAL)), new MeltanoState(obj(FULL), obj(PARTIAL)));
            assertEquals(new MeltanoState(obj(FULL), obj(PARTIAL)).hashCode(),
                    new MeltanoState(obj(FULL), obj(PARTIAL)).hashCode());
            assertEquals(MeltanoState.empty(), new MeltanoState(obj("{}"), null));
        }
    }

    @Nested
    class Reading {

        @Test
        void mergedIsPartialOverCompleted() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            assertEquals("{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":2,\"rk\":\"x\"},\"b\":{\"v\":1}},"
                    + "\"currently_syncing\":null}}", compact(s.merged()));
        }

        @Test
        void mergedConflictIsReported() {
            MeltanoState s = new MeltanoState(obj("{\"singer_state\": {\"bookmarks\": []}}"),
                    obj("{\"singer_state\": {\"bookmarks\": {\"a\": 1}}}"));
            StateConflictException e = assertThrows(StateConflictException.class, s::merged);
            assertEquals("singer_state.bookmarks", e.path());
            assertThrows(StateConflictException.class, s::singerState);
        }

        @Test
        void isCompleteMeansNonEmptyCompleted() {
            assertTrue(new MeltanoState(obj("{\"singer_state\": {}}"), null).isComplete());
            assertTrue(new MeltanoState(obj("{\"other\": 1}"), null).isComplete());
            assertFalse(new MeltanoState(null, obj(PARTIAL)).isComplete());
            assertFalse(MeltanoState.empty().isComplete());
        }

        @Test
        void singerStateIsTheUnwrappedMergedValue() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            assertEquals("{\"bookmarks\":{\"a\":{\"v\":2,\"rk\":\"x\"},\"b\":{\"v\":1}},\"currently_syncing\":null}",
                    compact(s.singerState()));
        }

        @Test
        void singerStateAbsentOrNull() {
            assertNull(new MeltanoState(obj("{\"other\": 1}"), null).singerState());
            assertEquals(NullNode.getInstance(), new MeltanoState(obj("{\"singer_state\": null}"), null).singerState());
        }

        @Test
        void singerStateMayBeAnyJsonValue() {
            assertEquals("[1,2]", compact(new MeltanoState(obj("{\"singer_state\": [1, 2]}"), null).singerState()));
        }

        @Test
        void tapStateFileIsIndentedSingerState() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            assertEquals("{\n  \"bookmarks\": {\n    \"a\": {\n      \"v\": 2,\n      \"rk\": \"x\"\n    },\n"
                    + "    \"b\": {\n      \"v\": 1\n    }\n  },\n  \"currently_syncing\": null\n}",
                    s.tapStateFile().orElseThrow());
        }

        @ParameterizedTest
        @ValueSource(strings = {"{}", "{\"singer_state\": {}}", "{\"singer_state\": null}", "{\"singer_state\": []}",
                "{\"singer_state\": \"\"}", "{\"singer_state\": 0}", "{\"singer_state\": false}", "{\"x\": {\"a\": 1}}"})
        void noTapStateFileForFalsySingerState(String completed) {
            assertEquals(Optional.empty(), new MeltanoState(obj(completed), null).tapStateFile());
        }
    }

    @Nested
    class CompleteWrites {

        @Test
        void replacesCompletedAndClearsPartial() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            MeltanoState next = s.applyComplete(obj("{\"singer_state\": {\"bookmarks\": {\"c\": {\"v\": 9}}}}"));
            assertEquals("{\"completed\": {\"singer_state\": {\"bookmarks\": {\"c\": {\"v\": 9}}}}, \"partial\": {}}",
                    next.toStateJson());
            assertTrue(next.isComplete());
        }

        @Test
        void replacesWithoutMerging() {
            MeltanoState s = new MeltanoState(obj(FULL), null);
            MeltanoState next = s.applyComplete(obj("{\"singer_state\": {\"bookmarks\": {\"a\": {\"v\": 3}}}}"));
            assertEquals("{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":3}}}}", compact(next.merged()));
        }

        @Test
        void emptyIncomingIsAPartialMergeThatChangesNothing() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            assertSame(s, s.applyComplete(obj("{}")));
            assertSame(MeltanoState.empty().getClass(), MeltanoState.empty().applyComplete(obj("{}")).getClass());
            assertEquals(MeltanoState.empty(), MeltanoState.empty().applyComplete(obj("{}")));
        }

        @Test
        void onAnEmptyRecord() {
            MeltanoState next = MeltanoState.empty().applyComplete(obj(FULL));
            assertEquals("{\"completed\": " + FULL + ", \"partial\": {}}", next.toStateJson());
        }

        @Test
        void doesNotValidateAndDoesNotKeepTheArgument() {
            ObjectNode incoming = obj("{\"bookmarks\": {}}");
            MeltanoState next = MeltanoState.empty().applyComplete(incoming);
            incoming.put("later", 1);
            assertEquals("{\"completed\": {\"bookmarks\": {}}, \"partial\": {}}", next.toStateJson());
        }

        @Test
        void leavesTheOriginalUnchanged() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            s.applyComplete(obj("{\"singer_state\": 1}"));
            assertEquals("{\"completed\": " + FULL + ", \"partial\": " + PARTIAL + "}", s.toStateJson());
        }
    }

    @Nested
    class PartialWrites {

        @Test
        void mergesIntoStoredPartialAndKeepsCompleted() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            MeltanoState next = s.applyPartial(obj("{\"singer_state\": {\"bookmarks\": {\"b\": {\"v\": 5}}}}"));
            assertEquals("{\"completed\": " + FULL + ", \"partial\": {\"singer_state\": {\"bookmarks\": "
                    + "{\"a\": {\"v\": 2}, \"b\": {\"v\": 5}}, \"currently_syncing\": null}}}", next.toStateJson());
            assertEquals("{\"singer_state\":{\"bookmarks\":{\"a\":{\"v\":2,\"rk\":\"x\"},\"b\":{\"v\":5}},"
                    + "\"currently_syncing\":null}}", compact(next.merged()));
        }

        @Test
        void newValueWins() {
            MeltanoState s = new MeltanoState(null, obj("{\"singer_state\": {\"a\": 1, \"l\": [1, 2]}}"));
            MeltanoState next = s.applyPartial(obj("{\"singer_state\": {\"a\": 2, \"l\": [3]}}"));
            assertEquals("{\"completed\": {}, \"partial\": {\"singer_state\": {\"a\": 2, \"l\": [3]}}}",
                    next.toStateJson());
        }

        @Test
        void onAnEmptyRecordStoresTheIncomingAsPartial() {
            // the merge-strategy run on a new ID, meltano-state.md §1d example
            MeltanoState next = MeltanoState.empty().applyPartial(
                    obj("{\"singer_state\": {\"bookmarks\": {\"stream_1\": {\"created_at\": \"2024-01-01T00:00:00+00:00\"}}}}"));
            assertEquals("{\"completed\": {}, \"partial\": {\"singer_state\": {\"bookmarks\": {\"stream_1\": "
                    + "{\"created_at\": \"2024-01-01T00:00:00+00:00\"}}}}}", next.toStateJson());
            assertFalse(next.isComplete());
        }

        @Test
        void partialDoesNotTouchCompletedEvenOnOverlap() {
            MeltanoState s = new MeltanoState(obj(FULL), null);
            MeltanoState next = s.applyPartial(obj(PARTIAL));
            assertEquals("{\"completed\": " + FULL + ", \"partial\": " + PARTIAL + "}", next.toStateJson());
        }

        @Test
        void emptyPartialChangesNothing() {
            MeltanoState s = new MeltanoState(obj(FULL), obj(PARTIAL));
            assertEquals(s.toStateJson(), s.applyPartial(obj("{}")).toStateJson());
        }

        @Test
        void conflictWithStoredPartialIsReported() {
            MeltanoState s = new MeltanoState(null, obj("{\"singer_state\": {\"x\": \"s\"}}"));
            StateConflictException e = assertThrows(StateConflictException.class,
                    () -> s.applyPartial(obj("{\"singer_state\": {\"x\": {\"y\": 1}}}")));
            assertEquals("singer_state.x", e.path());
            assertEquals("{\"completed\": {}, \"partial\": {\"singer_state\": {\"x\": \"s\"}}}", s.toStateJson());
        }

        @Test
        void completeAfterPartialClearsIt() {
            MeltanoState s = MeltanoState.empty().applyPartial(obj(PARTIAL)).applyComplete(obj(FULL));
            assertEquals("{\"completed\": " + FULL + ", \"partial\": {}}", s.toStateJson());
        }

        @Test
        void nullArgumentsAreRejected() {
            assertThrows(NullPointerException.class, () -> MeltanoState.empty().applyPartial(null));
            assertThrows(NullPointerException.class, () -> MeltanoState.empty().applyComplete(null));
        }
    }

    @Nested
    class StateJson {

        @Test
        void specExamples() {
            String normal = "{\"completed\": {\"singer_state\": {\"bookmarks\": {\"users\": {\"replication_key\": "
                    + "\"updated_at\", \"replication_key_value\": \"2024-01-01T00:00:00+00:00\"}}, "
                    + "\"currently_syncing\": null}}, \"partial\": {}}";
            String merge = "{\"completed\": {}, \"partial\": {\"singer_state\": {\"bookmarks\": {\"stream_1\": "
                    + "{\"created_at\": \"2024-01-01T00:00:00+00:00\"}}}}}";
            assertEquals(normal, MeltanoState.fromStateJson(normal).toStateJson());
            assertEquals(merge, MeltanoState.fromStateJson(merge).toStateJson());
        }

        @Test
        void missingKeysAreEmpty() {
            assertEquals(MeltanoState.empty(), MeltanoState.fromStateJson("{}"));
            assertEquals("{\"completed\": {}, \"partial\": {\"singer_state\": 1}}",
                    MeltanoState.fromStateJson("{\"partial\": {\"singer_state\": 1}}").toStateJson());
        }

        @Test
        void explicitNullIsEmptyUnlikeMeltano() {
            assertEquals("{\"completed\": {}, \"partial\": {}}",
                    MeltanoState.fromStateJson("{\"completed\": null, \"partial\": null}").toStateJson());
        }

        @Test
        void keyOrderAndExtraKeysOnInput() {
            MeltanoState s = MeltanoState.fromStateJson(
                    "{\"partial\": {\"b\": 1}, \"version\": 2, \"completed\": {\"a\": 1}}");
            assertEquals("{\"completed\": {\"a\": 1}, \"partial\": {\"b\": 1}}", s.toStateJson());
        }

        @Test
        void pythonSyntaxAndValuesSurvive() {
            String text = "{\"completed\": {\"singer_state\": {\"x\": \"caf\\u00e9\", \"f\": NaN, \"g\": 1e+16, "
                    + "\"big\": 123456789012345678901234567890}}, \"partial\": {}}";
            assertEquals(text, MeltanoState.fromStateJson(text).toStateJson());
            assertEquals(text, MeltanoState.fromStateJson(text.replace(", ", ",").replace(": ", ":")).toStateJson());
        }

        @ParameterizedTest
        @ValueSource(strings = {"[]", "null", "\"x\"", "{\"completed\": []}", "{\"completed\": \"x\"}",
                "{\"partial\": 1}", "{\"partial\": true}"})
        void wrongShapesAreRejected(String json) {
            assertThrows(InvalidStateException.class, () -> MeltanoState.fromStateJson(json));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "{", "{\"completed\": {}} x", "{\"completed\": {},}"})
        void invalidJsonIsRejected(String json) {
            assertThrows(InvalidJsonException.class, () -> MeltanoState.fromStateJson(json));
        }

        @Test
        void wrongShapeMessage() {
            InvalidStateException e = assertThrows(InvalidStateException.class,
                    () -> MeltanoState.fromStateJson("{\"completed\": \"x\"}"));
            assertEquals("\"completed\" in a state.json record must be an object or null, not string", e.getMessage());
        }
    }

    // ---- properties ------------------------------------------------------------------------

    @Provide
    Arbitrary<ObjectNode> states() {
        return JsonTrees.stateObjects(3);
    }

    @Property(tries = 300)
    void stateJsonRoundTrips(@ForAll("states") ObjectNode completed, @ForAll("states") ObjectNode partial) {
        MeltanoState s = new MeltanoState(completed, partial);
        String text = s.toStateJson();
        MeltanoState back = MeltanoState.fromStateJson(text);
        assertEquals(s, back);
        assertEquals(text, back.toStateJson());
    }

    @Property(tries = 300)
    void completeWriteThenReadGivesTheWrittenState(@ForAll("states") ObjectNode stored,
                                                   @ForAll("states") ObjectNode storedPartial,
                                                   @ForAll("states") ObjectNode incoming) {
        MeltanoState next = new MeltanoState(stored, storedPartial).applyComplete(incoming);
        if (incoming.isEmpty()) {
            assertEquals(new MeltanoState(stored, storedPartial), next);
        } else {
            assertEquals(PythonJson.write(incoming, Layout.DEFAULT), PythonJson.write(next.merged(), Layout.DEFAULT));
            assertEquals(JsonNodeFactory.instance.objectNode(), next.partial());
        }
    }

    @Property(tries = 300)
    void partialWritesKeepCompleted(@ForAll("states") ObjectNode stored, @ForAll("states") ObjectNode incoming) {
        MeltanoState before = new MeltanoState(stored, null);
        try {
            MeltanoState next = before.applyPartial(incoming);
            assertEquals(before.completed(), next.completed());
            assertEquals(PythonJson.write(incoming, Layout.DEFAULT), PythonJson.write(next.partial(), Layout.DEFAULT));
        } catch (StateConflictException e) {
            throw new AssertionError("no conflict is possible on an empty partial", e);
        }
    }
}
