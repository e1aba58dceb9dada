package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

import java.math.BigInteger;
import java.util.List;

/** jqwik generators for JSON trees in the canonical shape {@link PythonJson#parse} produces. */
public final class JsonTrees {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private JsonTrees() {
    }

    /** Any UTF-16 content: lone surrogates, controls, astral code points, plain ASCII. */
    public static Arbitrary<String> strings() {
        Arbitrary<String> anyChars = Arbitraries.strings().all().ofMaxLength(12);
        Arbitrary<String> codePoints = Arbitraries.integers().between(0, 0x10FFFF).list().ofMaxSize(8)
                .map(cps -> new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
        Arbitrary<String> controls = Arbitraries.strings().withCharRange('\u0000', '\u00a0').ofMaxLength(8);
        Arbitrary<String> astral = Arbitraries.integers().between(0x10000, 0x10FFFF).list().ofMaxSize(4)
                .map(cps -> new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
        Arbitrary<String> ascii = Arbitraries.strings().ascii().ofMaxLength(12);
        return Arbitraries.oneOf(anyChars, codePoints, controls, astral, ascii);
    }

    public static Arbitrary<Double> doubles() {
        return Arbitraries.oneOf(
                Arbitraries.longs().map(Double::longBitsToDouble),
                Arbitraries.doubles(),
                Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0,
                        Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, 1e16, 1e-5,
                        1e15, 1e-4, 0.1, 100000.0, 9007199254740993.0));
    }

    /** Integers as IntNode, LongNode or BigIntegerNode, whichever is narrowest (as parse gives). */
    public static Arbitrary<JsonNode> integers() {
        Arbitrary<BigInteger> values = Arbitraries.oneOf(
                Arbitraries.integers().map(BigInteger::valueOf),
                Arbitraries.longs().map(BigInteger::valueOf),
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(60).negate(), BigInteger.TEN.pow(60)),
                Arbitraries.of(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE),
                        BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE),
                        BigInteger.valueOf(Integer.MAX_VALUE).add(BigInteger.ONE), BigInteger.ZERO));
        return values.map(JsonTrees::integer);
    }

    public static JsonNode integer(BigInteger v) {
        if (v.bitLength() < 32) {
            return IntNode.valueOf(v.intValue());
        }
        if (v.bitLength() < 64) {
            return LongNode.valueOf(v.longValue());
        }
        return BigIntegerNode.valueOf(v);
    }

    public static Arbitrary<JsonNode> scalars() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, strings().map(s -> (JsonNode) TextNode.valueOf(s))),
                Tuple.of(3, doubles().map(d -> (JsonNode) DoubleNode.valueOf(d))),
                Tuple.of(3, integers()),
                Tuple.of(1, Arbitraries.of(F.booleanNode(true), F.booleanNode(false), F.nullNode())));
    }

    /** Trees up to {@code depth} levels of containers. */
    public static Arbitrary<JsonNode> trees(int depth) {
        if (depth == 0) {
            return scalars();
        }
        Arbitrary<JsonNode> child = Arbitraries.lazy(() -> trees(depth - 1));
        return Arbitraries.frequencyOf(
                Tuple.of(3, scalars()),
                Tuple.of(2, arrays(child)),
                Tuple.of(2, objects(child)));
    }

    public static Arbitrary<JsonNode> arrays(Arbitrary<JsonNode> child) {
        return child.list().ofMaxSize(5).map(items -> {
            ArrayNode a = F.arrayNode();
            items.forEach(a::add);
            return a;
        });
    }

    public static Arbitrary<JsonNode> objects(Arbitrary<JsonNode> child) {
        return objectNodes(child).map(o -> o);
    }

    public static Arbitrary<ObjectNode> objectNodes(Arbitrary<JsonNode> child) {
        Arbitrary<String> keys = Arbitraries.oneOf(strings(), Arbitraries.of("a", "b", "c", "singer_state", "bookmarks"));
        return Arbitraries.entries(keys, child).list().ofMaxSize(5).map(entries -> {
            ObjectNode o = F.objectNode();
            entries.forEach(e -> o.set(e.getKey(), e.getValue()));
            return o;
        });
    }

    /** Objects only, for state: nested objects are more likely so that merges recurse. */
    public static Arbitrary<ObjectNode> stateObjects(int depth) {
        Arbitrary<String> keys = Arbitraries.of("a", "b", "c", "d", "singer_state", "bookmarks");
        Arbitrary<JsonNode> child = depth == 0 ? scalars()
                : Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.lazy(() -> stateObjects(depth - 1)).map(o -> (JsonNode) o)),
                        Tuple.of(2, scalars()),
                        Tuple.of(1, arrays(scalars())));
        return Arbitraries.entries(keys, child).list().ofMaxSize(4).map(entries -> {
            ObjectNode o = F.objectNode();
            entries.forEach(e -> o.set(e.getKey(), e.getValue()));
            return o;
        });
    }

    /** Key order of every object, depth first; Jackson's equals() ignores it. */
    public static List<String> keyOrder(JsonNode node) {
        List<String> out = new java.util.ArrayList<>();
        collect(node, out);
        return out;
    }

    private static void collect(JsonNode node, List<String> out) {
        if (node.isObject()) {
            node.properties().forEach(e -> {
                out.add(e.getKey());
                collect(e.getValue(), out);
            });
            out.add("}");
        } else if (node.isArray()) {
            node.forEach(n -> collect(n, out));
            out.add("]");
        }
    }
}
