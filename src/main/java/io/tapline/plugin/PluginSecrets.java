package io.tapline.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.audit.AuditDiff;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Sensitive values of a plugin at rest, and the secret-free change summary of a plugin for the
 * audit trail. A sensitive value (a config setting or env variable named in {@code sensitive}) is
 * stored as {@link SecretCipher#seal sealed} JSON text of the value when an encryption key is
 * configured, unless it is a reference ({@code ${env:NAME}}, {@code ${secret:NAME}},
 * {@code ${file:/path}}, {@code ${NAME}}, {@code $NAME}), which stays as written. Stateless.
 */
public final class PluginSecrets {

    /** A value that is exactly one reference, resolved when a run starts. */
    public static final Pattern REFERENCE = Pattern.compile(
            "\\$\\{(env|secret|file):[^}]+}|\\$\\{[A-Za-z_][A-Za-z0-9_]*}|\\$[A-Za-z_][A-Za-z0-9_]*");

    private PluginSecrets() {
    }

    /** True when {@code node} is a text value that is exactly one reference. */
    public static boolean isReference(JsonNode node) {
        return node != null && node.isTextual() && REFERENCE.matcher(node.asText()).matches();
    }

    /**
     * Seals every sensitive value of {@code plugin} that is neither a reference nor already sealed
     * with the current key; values sealed with an old key are re-sealed. Does nothing without a key.
     */
    public static void seal(Plugin plugin, SecretCipher cipher) {
        if (!cipher.enabled()) {
            return;
        }
        ObjectNode config = Jsons.readObject(plugin.config);
        Map<String, String> env = Jsons.readStringMap(plugin.env);
        if (sealValues(config, env, Jsons.readStrings(plugin.sensitive), cipher)) {
            plugin.config = Jsons.write(config);
            plugin.env = Jsons.write(env);
        }
    }

    /**
     * Seals the sensitive values of a plugin's environment overlay as {@link #seal(Plugin, SecretCipher)}
     * does the plugin's.
     *
     * @param sensitive the plugin's sensitive names
     */
    public static void seal(PluginEnvironment overlay, List<String> sensitive, SecretCipher cipher) {
        if (!cipher.enabled()) {
            return;
        }
        ObjectNode config = Jsons.readObject(overlay.config);
        Map<String, String> env = Jsons.readStringMap(overlay.env);
        if (sealValues(config, env, sensitive, cipher)) {
            overlay.config = Jsons.write(config);
            overlay.env = Jsons.write(env);
        }
    }

    /** Seals in place every sensitive value of {@code config} and {@code env}; true when one changed. */
    private static boolean sealValues(ObjectNode config, Map<String, String> env, List<String> sensitive,
                                      SecretCipher cipher) {
        boolean changed = false;
        for (String path : sensitive) {
            JsonNode v = PluginMapper.at(config, path);
            if (v != null && !v.isNull() && !v.isMissingNode() && !isReference(v)) {
                String sealed = sealNode(v, cipher);
                if (sealed != null) {
                    PluginMapper.set(config, path, TextNode.valueOf(sealed));
                    changed = true;
                }
            }
            String e = env.get(path);
            if (e != null && !isReference(TextNode.valueOf(e))) {
                String sealed = sealNode(TextNode.valueOf(e), cipher);
                if (sealed != null) {
                    env.put(path, sealed);
                    changed = true;
                }
            }
        }
        return changed;
    }

    /** The sealed form of a value, or null when it is already sealed with the current key. */
    private static String sealNode(JsonNode v, SecretCipher cipher) {
        if (v.isTextual() && SecretCipher.isSealed(v.asText())) {
            if (!cipher.needsReseal(v.asText())) {
                return null;
            }
            return cipher.seal(cipher.open(v.asText()));
        }
        return cipher.seal(Jsons.write(v));
    }

    /**
     * Opens a sealed value (its JSON text) into the value that was sealed.
     *
     * @throws SecretCipher.SecretException when it cannot be opened
     */
    public static JsonNode open(String sealed, SecretCipher cipher) {
        return Jsons.read(cipher.open(sealed));
    }

    /**
     * The audit summary of a change from {@code before} (null on create) to {@code after} (null on
     * delete): changed field names, and for config and env the names of added, changed and removed
     * settings (top-level config keys). Sealed values are compared by what they hold, so a value
     * sent back as the mask is unchanged. Never contains values.
     */
    public static Map<String, Object> summary(Plugin before, Plugin after, SecretCipher cipher) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (after == null) {
            return out;
        }
        Map<String, String> b = before == null ? Map.of() : fields(before);
        Map<String, String> a = fields(after);
        List<String> changedFields = new ArrayList<>();
        for (String f : a.keySet()) {
            if (f.equals("config") || f.equals("env")) {
                continue;
            }
            boolean empty = a.get(f) == null || a.get(f).equals("[]") || a.get(f).equals("{}");
            if (before == null ? !empty : !Objects.equals(b.get(f), a.get(f))) {
                changedFields.add(f);
            }
        }
        Map<String, List<String>> config = AuditDiff.names(before == null ? null : openAll(before, cipher, false),
                openAll(after, cipher, false));
        Map<String, List<String>> env = AuditDiff.names(before == null ? null : openAll(before, cipher, true),
                openAll(after, cipher, true));
        if (!config.isEmpty()) {
            changedFields.add("config");
            out.put("config", config);
        }
        if (!env.isEmpty()) {
            changedFields.add("env");
            out.put("env", env);
        }
        out.put(before == null ? "fields" : "changed", changedFields);
        return out;
    }

    private static Map<String, String> fields(Plugin p) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("executable", p.executable);
        m.put("args", p.args);
        m.put("capabilities", p.capabilities);
        m.put("sensitive", p.sensitive);
        m.put("select", p.selectPatterns);
        m.put("metadata", p.metadata);
        m.put("catalog", p.catalog);
        return m;
    }

    /** Config (or env) of a plugin with its sealed values opened, for comparison only. */
    private static ObjectNode openAll(Plugin p, SecretCipher cipher, boolean env) {
        ObjectNode node = env ? (ObjectNode) Jsons.MAPPER.valueToTree(Jsons.readStringMap(p.env)) : Jsons.readObject(p.config);
        for (String path : Jsons.readStrings(p.sensitive)) {
            JsonNode v = env ? node.get(path) : PluginMapper.at(node, path);
            if (v != null && v.isTextual() && SecretCipher.isSealed(v.asText())) {
                JsonNode opened;
                try {
                    opened = open(v.asText(), cipher);
                } catch (RuntimeException e) {
                    opened = v; // compare as stored
                }
                if (env) {
                    node.set(path, TextNode.valueOf(opened.isTextual() ? opened.asText() : Jsons.write(opened)));
                } else {
                    PluginMapper.set(node, path, opened);
                }
            }
        }
        return node;
    }
}
