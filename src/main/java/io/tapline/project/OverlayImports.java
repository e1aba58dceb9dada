package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;
import io.tapline.plugin.PluginEnvironment;
import io.tapline.plugin.PluginMapper;
import io.tapline.plugin.api.EnvironmentOverlayRequest;
import io.tapline.project.model.ProjectModel.Overlay;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What an import asks of a plugin's overlay in one environment: the request that makes the stored
 * overlay what the document gives, with a sensitive value that the export wrote as its reference
 * ({@code ${PLUGIN_SETTING}} of the plugin or a parent in config, {@code ${NAME}} in env) sent as
 * the mask, so that the overlay keeps the value it stores, and whether that changes the stored
 * overlay (sealed values compared by what they hold). Stateless.
 */
final class OverlayImports {

    private OverlayImports() {
    }

    /**
     * The request for one overlay.
     *
     * @param stored the overlay stored now, or null
     * @param sensitive the plugin's sensitive names (as the import stores them)
     * @param lineage the plugin and the plugins it inherits from
     */
    static EnvironmentOverlayRequest request(Overlay o, PluginEnvironment stored, List<String> sensitive,
                                             List<String> lineage) {
        ObjectNode config = o.config().deepCopy();
        Map<String, String> env = new LinkedHashMap<>(o.env());
        if (stored != null) {
            ObjectNode storedConfig = Jsons.readObject(stored.config);
            Map<String, String> storedEnv = Jsons.readStringMap(stored.env);
            for (String s : sensitive) {
                JsonNode incoming = PluginMapper.at(config, s);
                JsonNode kept = PluginMapper.at(storedConfig, s);
                if (incoming != null && kept != null && !SensitiveNames.isReference(kept.asText())
                        && lineage.stream().anyMatch(n -> incoming.asText().equals(SensitiveNames.reference(n, s)))) {
                    PluginMapper.set(config, s, TextNode.valueOf(PluginMapper.MASK));
                }
                String keptEnv = storedEnv.get(s);
                if (("${" + s + "}").equals(env.get(s)) && keptEnv != null && !SensitiveNames.isReference(keptEnv)) {
                    env.put(s, PluginMapper.MASK);
                }
            }
        }
        return new EnvironmentOverlayRequest(config, env, o.metadata().deepCopy(), o.select(), o.extras().deepCopy());
    }

    /**
     * True when the request changes the stored overlay (or there is none).
     *
     * @param open opens a sealed value into its JSON text
     */
    static boolean changes(EnvironmentOverlayRequest req, PluginEnvironment stored, List<String> sensitive,
                           UnaryOperator<String> open) {
        if (stored == null) {
            return true;
        }
        ObjectNode config = req.config().deepCopy();
        ObjectNode storedConfig = Jsons.readObject(stored.config);
        Map<String, String> env = new LinkedHashMap<>(req.env());
        Map<String, String> storedEnv = Jsons.readStringMap(stored.env);
        for (String s : sensitive) {
            JsonNode kept = PluginMapper.at(storedConfig, s);
            if (kept != null && kept.isTextual() && SecretCipher.isSealed(kept.asText())) {
                PluginMapper.set(storedConfig, s, Jsons.read(open.apply(kept.asText())));
            }
            JsonNode incoming = PluginMapper.at(config, s);
            if (incoming != null && PluginMapper.MASK.equals(incoming.asText()) && kept != null) {
                PluginMapper.set(config, s, PluginMapper.at(storedConfig, s).deepCopy());
            }
            String keptEnv = storedEnv.get(s);
            if (keptEnv != null && SecretCipher.isSealed(keptEnv)) {
                JsonNode v = Jsons.read(open.apply(keptEnv));
                storedEnv.put(s, v.isTextual() ? v.asText() : Jsons.write(v));
            }
            if (PluginMapper.MASK.equals(env.get(s))) {
                env.put(s, storedEnv.get(s));
            }
        }
        JsonNode storedSelect = stored.selectPatterns == null ? null : Jsons.read(stored.selectPatterns);
        JsonNode select = req.select() == null ? null : Jsons.MAPPER.valueToTree(req.select());
        return !same(config, storedConfig) || !env.equals(storedEnv)
                || !same(req.metadata(), Jsons.readObject(stored.metadata)) || !Objects.equals(select, storedSelect)
                || !same(req.extras() == null ? JsonNodeFactory.instance.objectNode() : req.extras(),
                Jsons.readObject(stored.extras));
    }

    /** Equal as JSON, numbers compared by value. */
    private static boolean same(JsonNode a, JsonNode b) {
        return Jsons.read(Jsons.write(a)).equals(Jsons.read(Jsons.write(b)));
    }
}
