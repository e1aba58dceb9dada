package io.tapline.project.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.project.SensitiveNames;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Removes secret values from the parts of a meltano.yml that Tapline stores as they are (the
 * environments of other names, {@code state_backend}, unknown keys): a scalar under a
 * sensitive-looking key ({@link SensitiveNames#looksSensitive}) that is not already a reference
 * becomes the reference {@code ${<PREFIX>_<PATH>}}, and a URI with a password
 * ({@code scheme://user:pass@host}) becomes a reference too.
 */
final class Sanitizer {

    private static final Pattern URI_WITH_PASSWORD = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://[^/@\\s]*:[^/@\\s]*@.*");

    private Sanitizer() {
    }

    /** A sanitised copy of {@code node}; {@code prefix} starts the names of the references. */
    static JsonNode sanitize(JsonNode node, String prefix) {
        return walk(node, prefix, false);
    }

    private static JsonNode walk(JsonNode node, String name, boolean sensitive) {
        if (node instanceof ObjectNode o) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            o.fields().forEachRemaining(f -> out.set(f.getKey(), walk(f.getValue(), name + "_" + f.getKey(),
                    SensitiveNames.looksSensitive(f.getKey()))));
            return out;
        }
        if (node instanceof ArrayNode a) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (int i = 0; i < a.size(); i++) {
                out.add(walk(a.get(i), name + "_" + i, sensitive));
            }
            return out;
        }
        if (node.isValueNode() && !node.isNull()) {
            String text = node.asText();
            if ((sensitive && !SensitiveNames.isReference(text))
                    || (node.isTextual() && URI_WITH_PASSWORD.matcher(text).matches())) {
                return JsonNodeFactory.instance.textNode("${" + name.replaceAll("[^A-Za-z0-9]", "_")
                        .toUpperCase(Locale.ROOT) + "}");
            }
        }
        return node.deepCopy();
    }
}
