package io.tapline.project.meltano;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Binds a parsed meltano.yml ({@link MeltanoYaml}) to {@link MeltanoDocument} with Jackson:
 * first {@link DocumentShape} checks the shape of every key Tapline reads (errors at YAML paths
 * go to {@link Issues}) and prepares a copy that binds without failing, then the keys each record
 * does not name are gathered, in document order, under its last component ({@code extras}; Jackson's
 * any-setter on records does not keep their order), and a Jackson mapper with Meltano's snake_case
 * names binds the result.
 *
 * <p>The hostile-input limits stay those of {@link MeltanoYaml}: binding works on the tree it
 * built within its node and size budgets (Jackson's own YAML parser is not used for reading, see
 * there). Numbers keep their written form ({@code 1.50} stays {@code 1.50}).
 */
public final class DocumentBinder {

    private static final PropertyNamingStrategies.NamingBase SNAKE_CASE =
            (PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE;
    /** The mapper of meltano.yml records: snake_case keys, unknown keys to extras, exact decimals. */
    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            // the tree is already bounded by MeltanoYaml's limits (depth, nodes, expanded size)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE).maxStringLength(Integer.MAX_VALUE).build())
            .build())
            .setPropertyNamingStrategy(SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

    private DocumentBinder() {
    }

    /**
     * The typed document; shape errors are recorded in {@code issues}, not thrown.
     *
     * @param parsed the document as {@link MeltanoYaml#parse} read it
     * @param issues where errors (YAML paths, with lines) go
     */
    public static MeltanoDocument bind(MeltanoYaml.Parsed parsed, Issues issues) {
        ObjectNode checked = DocumentShape.check(parsed.root(), issues);
        gather(checked, MeltanoDocument.class);
        try {
            return MAPPER.treeToValue(checked, MeltanoDocument.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            // DocumentShape prepares every value the records type: this is a bug, not bad input.
            throw new IllegalStateException("a checked meltano.yml did not bind: " + e.getMessage(), e);
        }
    }

    /**
     * Moves the keys of {@code node} that the record {@code type} does not name into a mapping under
     * the name of its last component (its extras), in their order; recurses into the components
     * that are records or lists of records. Records read by a delegating creator ({@code Tasks},
     * {@code Command}) are left as they are.
     */
    private static void gather(JsonNode node, Type type) {
        if (type instanceof ParameterizedType p && p.getRawType() == List.class && node instanceof ArrayNode a) {
            a.forEach(item -> gather(item, p.getActualTypeArguments()[0]));
            return;
        }
        if (!(type instanceof Class<?> c) || !c.isRecord() || !(node instanceof ObjectNode o) || delegating(c)) {
            return;
        }
        RecordComponent[] components = c.getRecordComponents();
        Map<String, Type> named = new HashMap<>();
        for (int i = 0; i < components.length - 1; i++) {
            named.put(SNAKE_CASE.translate(components[i].getName()), components[i].getGenericType());
        }
        ObjectNode extras = JsonNodeFactory.instance.objectNode();
        List<String> keys = new ArrayList<>();
        o.fieldNames().forEachRemaining(keys::add);
        for (String k : keys) {
            if (named.containsKey(k)) {
                gather(o.get(k), named.get(k));
            } else {
                extras.set(k, o.remove(k));
            }
        }
        o.set(SNAKE_CASE.translate(components[components.length - 1].getName()), extras);
    }

    private static boolean delegating(Class<?> c) {
        for (Method m : c.getDeclaredMethods()) {
            if (m.isAnnotationPresent(JsonCreator.class)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The entries of a list bound to {@code type}, in order and at their YAML index: an entry that
     * is not a mapping with a textual {@code name}, or that does not bind, is null (the check reports
     * it). Empty when {@code list} is not a list.
     */
    public static <T> List<T> bindEach(JsonNode list, Class<T> type) {
        List<T> out = new ArrayList<>();
        if (!(list instanceof ArrayNode a)) {
            return out;
        }
        for (JsonNode item : a) {
            T bound = null;
            if (item instanceof ObjectNode o && o.path("name").isTextual()) {
                try {
                    ObjectNode copy = o.deepCopy();
                    gather(copy, type);
                    bound = MAPPER.treeToValue(copy, type);
                } catch (JsonProcessingException | IllegalArgumentException e) {
                    // an entry of the wrong shape: reported by DocumentShape
                }
            }
            out.add(bound);
        }
        return java.util.Collections.unmodifiableList(out);
    }
}
