package io.tapline.common.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NumericNode;
import com.fasterxml.jackson.databind.node.ValueNode;
import io.quarkus.jackson.ObjectMapperCustomizer;
import io.tapline.common.error.InvalidInputException;
import jakarta.inject.Singleton;

import java.io.IOException;

/**
 * Checks of every JSON request body, applied while it is read (the REST layer's
 * {@link ObjectMapper}):
 * <ul>
 *   <li>a string field holding a NUL character ({@code \u005Cu0000}) is refused (400 on that field):
 *   PostgreSQL cannot store it in a name, an executable or a filter, and used to answer 500;</li>
 *   <li>a number that does not fit a double ({@code 1e999999999}) is refused (400) instead of being
 *   stored as {@code "Infinity"};</li>
 *   <li>a key given twice in one object is refused (400, "Duplicate field"), instead of the last
 *   one silently winning;</li>
 *   <li>a scalar of the wrong JSON type is refused (400 "wrong type" on that field) instead of being
 *   coerced: a number or boolean where a string is expected ({@code "name": 42}), a string where
 *   a number or boolean is expected ({@code "maxRetries": "3"}), a number where a boolean is
 *   expected ({@code "fullRefresh": 1}), a fraction where an integer is
 *   expected ({@code 1.5}). Free-form values (config, bookmarks: JSON trees) keep every type.</li>
 * </ul>
 * Only the REST layer's mapper is configured so; connector output (catalogs, state) is read by
 * other parsers with the rules of the tools that wrote it.
 */
@Singleton
public class JsonInputChecks implements ObjectMapperCustomizer {

    /** The message of the {@link InvalidFormatException} a NUL character raises (ProblemMappers words it). */
    public static final String NUL_MESSAGE = "a string holds a NUL character";

    @Override
    public void customize(ObjectMapper mapper) {
        SimpleModule module = new SimpleModule("tapline-input-checks");
        module.addDeserializer(String.class, new NulFreeStrings());
        mapper.registerModule(module);
        mapper.setNodeFactory(new FiniteNumbers());
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        for (LogicalType scalar : new LogicalType[]{LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
            mapper.coercionConfigFor(scalar).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
    }

    /** Strings as Jackson reads them, without NUL characters. */
    static final class NulFreeStrings extends StdScalarDeserializer<String> {
        NulFreeStrings() {
            super(String.class);
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String s = StringDeserializer.instance.deserialize(p, ctxt);
            if (s != null && s.indexOf('\0') >= 0) {
                throw InvalidFormatException.from(p, NUL_MESSAGE, null, String.class);
            }
            return s;
        }
    }

    /** Tree nodes whose floating-point numbers are finite. */
    static final class FiniteNumbers extends JsonNodeFactory {
        FiniteNumbers() {
            super(false);
        }

        @Override
        public NumericNode numberNode(double v) {
            finite(v);
            return super.numberNode(v);
        }

        @Override
        public ValueNode numberNode(Double v) {
            if (v != null) {
                finite(v);
            }
            return super.numberNode(v);
        }

        @Override
        public NumericNode numberNode(float v) {
            finite(v);
            return super.numberNode(v);
        }

        private static void finite(double v) {
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                throw InvalidInputException.field("body", "holds a number too large for a double (such as 1e999999999);"
                        + " numbers must be finite");
            }
        }
    }
}
