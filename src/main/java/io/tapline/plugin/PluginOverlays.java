package io.tapline.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.common.error.Problem;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;
import io.tapline.plugin.api.EnvironmentOverlayRequest;
import io.tapline.plugin.api.EnvironmentOverlayResponse;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Meltano's rule for a plugin in an environment, and the API view of an overlay. Meltano reads a
 * plugin's settings in an environment from the environment's entry of the plugin over the plugin's
 * own ({@code EnvironmentPluginConfig} over the base in {@code PluginSettingsService}): config and
 * metadata are deep-merged (objects member by member, every other value replaced), {@code select}
 * replaces the plugin's when given, env variables are put over the plugin's. Stateless.
 */
public final class PluginOverlays {

    private PluginOverlays() {
    }

    /**
     * The plugin as it runs in the overlay's environment: a detached copy (no row changes) with the
     * overlay merged in; the plugin itself (a copy) when there is no overlay. Sealed values stay
     * sealed; they are opened where the plugin's are.
     *
     * @param overlay the overlay of the plugin in the environment, or null
     */
    public static Plugin overlaid(Plugin plugin, PluginEnvironment overlay) {
        Plugin p = plugin.detachedCopy();
        if (overlay == null) {
            return p;
        }
        ObjectNode config = Jsons.readObject(plugin.config);
        deepMerge(config, Jsons.readObject(overlay.config));
        p.config = Jsons.write(config);
        ObjectNode metadata = Jsons.readObject(plugin.metadata);
        deepMerge(metadata, Jsons.readObject(overlay.metadata));
        p.metadata = Jsons.write(metadata);
        if (overlay.selectPatterns != null) {
            p.selectPatterns = overlay.selectPatterns;
        }
        Map<String, String> env = Jsons.readStringMap(plugin.env);
        env.putAll(Jsons.readStringMap(overlay.env));
        p.env = Jsons.write(env);
        return p;
    }

    /** Merges {@code overlay} into {@code target}: objects member by member, every other value replaced. */
    public static void deepMerge(ObjectNode target, ObjectNode overlay) {
        overlay.fields().forEachRemaining(f -> {
            JsonNode existing = target.get(f.getKey());
            if (existing instanceof ObjectNode eo && f.getValue() instanceof ObjectNode fo) {
                deepMerge(eo, fo);
            } else {
                target.set(f.getKey(), f.getValue().deepCopy());
            }
        });
    }

    /** The API view of an overlay, the plugin's sensitive values masked. */
    public static EnvironmentOverlayResponse toResponse(PluginEnvironment o, List<String> sensitive) {
        ObjectNode config = Jsons.readObject(o.config);
        Map<String, String> env = Jsons.readStringMap(o.env);
        for (String path : sensitive) {
            if (PluginMapper.at(config, path) != null) {
                PluginMapper.set(config, path, TextNode.valueOf(PluginMapper.MASK));
            }
            if (env.containsKey(path)) {
                env.put(path, PluginMapper.MASK);
            }
        }
        return new EnvironmentOverlayResponse(o.environment, config, env, Jsons.readObject(o.metadata),
                o.selectPatterns == null ? null : Jsons.readStrings(o.selectPatterns), Jsons.readObject(o.extras),
                o.version, o.updatedAt);
    }

    /**
     * Writes a request into an overlay: a sensitive value sent as the mask keeps the value stored in
     * this overlay; an encrypted-looking value is refused.
     *
     * @param sensitive the plugin's sensitive names
     * @throws InvalidInputException 400 listing every invalid field
     */
    static void apply(EnvironmentOverlayRequest req, PluginEnvironment o, List<String> sensitive) {
        List<Problem.FieldError> errors = new ArrayList<>();
        ObjectNode config = req.config() == null ? JsonNodeFactory.instance.objectNode() : req.config().deepCopy();
        Map<String, String> env = new LinkedHashMap<>();
        if (req.env() != null) {
            req.env().forEach((k, v) -> {
                if (k == null || k.isBlank() || v == null) {
                    errors.add(new Problem.FieldError("env." + k, "must be a variable name with a string value"));
                } else {
                    env.put(k, v);
                }
            });
        }
        ArrayNode select = null;
        if (req.select() != null) {
            select = JsonNodeFactory.instance.arrayNode();
            for (int i = 0; i < req.select().size(); i++) {
                String s = req.select().get(i);
                if (s == null || s.isBlank()) {
                    errors.add(new Problem.FieldError("select[" + i + "]", "must be a select pattern (stream.property)"));
                } else {
                    select.add(s);
                }
            }
        }
        ObjectNode storedConfig = Jsons.readObject(o.config);
        Map<String, String> storedEnv = Jsons.readStringMap(o.env);
        for (String path : sensitive) {
            JsonNode incoming = PluginMapper.at(config, path);
            if (incoming != null && incoming.isTextual() && incoming.asText().startsWith(SecretCipher.PREFIX)
                    || env.getOrDefault(path, "").startsWith(SecretCipher.PREFIX)) {
                errors.add(new Problem.FieldError((incoming != null ? "config." : "env.") + path,
                        "looks like an encrypted value; send the real value, a reference, or the mask \""
                                + PluginMapper.MASK + "\""));
                continue;
            }
            if (incoming != null && PluginMapper.MASK.equals(incoming.asText())) {
                JsonNode stored = PluginMapper.at(storedConfig, path);
                if (stored == null) {
                    errors.add(new Problem.FieldError("config." + path, "is the mask \"" + PluginMapper.MASK
                            + "\" but this environment stores no value; send the real value"));
                } else {
                    PluginMapper.set(config, path, stored.deepCopy());
                }
            }
            if (PluginMapper.MASK.equals(env.get(path))) {
                if (!storedEnv.containsKey(path)) {
                    errors.add(new Problem.FieldError("env." + path, "is the mask \"" + PluginMapper.MASK
                            + "\" but this environment stores no value; send the real value"));
                } else {
                    env.put(path, storedEnv.get(path));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors.size() == 1
                    ? errors.get(0).field() + ": " + errors.get(0).message()
                    : errors.size() + " fields are invalid: " + String.join(", ",
                    errors.stream().map(Problem.FieldError::field).toList()) + ".", List.copyOf(errors));
        }
        o.config = Jsons.write(config);
        o.env = Jsons.write(env);
        o.metadata = Jsons.write(req.metadata() == null ? JsonNodeFactory.instance.objectNode() : req.metadata());
        o.selectPatterns = select == null ? null : Jsons.write(select);
        o.extras = Jsons.write(req.extras() == null ? JsonNodeFactory.instance.objectNode() : req.extras());
    }
}
