package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.PluginMapper;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cache key of a discovered catalog: sha-256 (64 hex digits) over the canonical JSON (object
 * keys sorted) of everything that can change what {@code --discover} prints: the executable as the
 * run starts it, its args, the resolved config and the plugin's own env, the plugin's
 * {@code pip_url}, the install marker of its environment (fingerprint and installed version) and its
 * capabilities (as a set). Secret values (settings named in {@code sensitive}, and every value
 * that came from a {@code ${secret:...}} reference) enter only as {@code sha256:<digest>}, so a
 * changed password discovers again while the key input never holds a secret in clear; the key
 * input itself is never stored. Pure.
 */
public final class CatalogKey {

    private CatalogKey() {
    }

    /**
     * What the key is computed from.
     *
     * @param executable the executable as the process is started (a resolved venv path for installed plugins)
     * @param args extra arguments
     * @param config resolved, decrypted config
     * @param sensitive names (dotted paths) of sensitive settings
     * @param env the plugin's own env, resolved
     * @param secrets every resolved secret value (masked in logs); replaced by its digest wherever it appears whole
     * @param pipUrl the plugin's pip_url, or null
     * @param install the install marker's fingerprint and version ({@code "<fingerprint> <version>"}), or null
     * @param capabilities declared capabilities
     */
    public record Input(String executable, List<String> args, ObjectNode config, List<String> sensitive,
                        Map<String, String> env, Collection<String> secrets, String pipUrl, String install,
                        List<String> capabilities) {
    }

    /** The key of {@code in}: 64 lower-case hex digits. */
    public static String of(Input in) {
        ObjectNode config = in.config() == null ? JsonNodeFactory.instance.objectNode() : in.config().deepCopy();
        for (String s : in.sensitive()) {
            JsonNode v = PluginMapper.at(config, s);
            if (v != null && !v.isNull() && !v.isMissingNode()) {
                PluginMapper.set(config, s, TextNode.valueOf(digest(v.isTextual() ? v.asText() : Jsons.write(v))));
            }
        }
        List<String> secrets = in.secrets() == null ? List.of() : List.copyOf(in.secrets());
        ObjectNode env = JsonNodeFactory.instance.objectNode();
        new TreeMap<>(in.env() == null ? Map.<String, String>of() : in.env()).forEach((k, v) ->
                env.put(k, in.sensitive().contains(k) || secrets.contains(v) ? digest(v) : v));
        ObjectNode all = JsonNodeFactory.instance.objectNode();
        all.put("executable", in.executable());
        ArrayNode args = all.putArray("args");
        in.args().forEach(args::add);
        all.set("config", canonical(config, secrets));
        all.set("env", env);
        all.put("pipUrl", in.pipUrl());
        all.put("install", in.install());
        ArrayNode caps = all.putArray("capabilities");
        new TreeSet<>(in.capabilities()).forEach(caps::add);
        return sha256(Jsons.write(all));
    }

    /** {@code sha256:<hex>} of a value. */
    static String digest(String value) {
        return "sha256:" + sha256(value == null ? "" : value);
    }

    /** Lower-case hex sha-256 of the UTF-8 bytes of {@code text}. */
    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A copy with object keys sorted and every string equal to a secret replaced by its digest. */
    private static JsonNode canonical(JsonNode n, List<String> secrets) {
        if (n.isObject()) {
            TreeMap<String, JsonNode> sorted = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                sorted.put(e.getKey(), canonical(e.getValue(), secrets));
            }
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            sorted.forEach(o::set);
            return o;
        }
        if (n.isArray()) {
            List<JsonNode> items = new ArrayList<>();
            n.forEach(x -> items.add(canonical(x, secrets)));
            return JsonNodeFactory.instance.arrayNode().addAll(items);
        }
        if (n.isTextual() && secrets.contains(n.asText())) {
            return TextNode.valueOf(digest(n.asText()));
        }
        return n;
    }
}
