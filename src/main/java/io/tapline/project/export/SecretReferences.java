package io.tapline.project.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.project.SensitiveNames;

import java.util.List;

/**
 * Secret values in the export: a sensitive setting is written as Meltano's environment variable
 * for it ({@code ${<PLUGIN>_<SETTING>}}, {@link SensitiveNames#reference}), never as its value, and
 * sealed values are compared by their plaintext (each seal has its own IV).
 */
final class SecretReferences {

    private SecretReferences() {
    }

    /** Equal values; two encrypted values are compared by their plaintext (each seal has its own IV). */
    static boolean sameValue(JsonNode a, JsonNode b, java.util.function.UnaryOperator<String> open) {
        if (a.equals(b)) {
            return true;
        }
        if (b != null && a.isTextual() && b.isTextual() && io.tapline.common.security.SecretCipher.isSealed(a.asText())
                && io.tapline.common.security.SecretCipher.isSealed(b.asText())) {
            try {
                return open.apply(a.asText()).equals(open.apply(b.asText()));
            } catch (RuntimeException e) {
                return false;
            }
        }
        return false;
    }

    /**
     * A copy of the config with each sensitive setting's value (a top-level key, or a dotted path
     * {@code a.b} to a nested one) replaced by its reference {@code ${<PLUGIN>_<SETTING>}}; values
     * that are references already stay.
     */
    static ObjectNode inConfig(String plugin, ObjectNode config, List<String> sensitive) {
        ObjectNode c = config.deepCopy();
        for (String s : sensitive) {
            JsonNode v = c.get(s);
            if (v != null && !(v.isTextual() && SensitiveNames.isReference(v.asText()))) {
                c.put(s, SensitiveNames.reference(plugin, s));
                continue;
            }
            if (v == null && s.contains(".")) {
                String[] parts = s.split("\\.");
                JsonNode n = c;
                for (int i = 0; i < parts.length - 1 && n != null; i++) {
                    n = n.get(parts[i]);
                }
                if (n instanceof ObjectNode holder && holder.has(parts[parts.length - 1])) {
                    JsonNode leaf = holder.get(parts[parts.length - 1]);
                    if (!(leaf.isTextual() && SensitiveNames.isReference(leaf.asText()))) {
                        holder.put(parts[parts.length - 1], SensitiveNames.reference(plugin, s));
                    }
                }
            }
        }
        return c;
    }
}
