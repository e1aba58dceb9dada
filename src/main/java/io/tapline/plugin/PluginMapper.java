package io.tapline.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.common.api.Names;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.Problem;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;
import io.tapline.plugin.api.PluginRequest;
import io.tapline.plugin.api.PluginResponse;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Validates plugin requests, copies them onto {@link Plugin} entities, and renders responses with
 * sensitive values masked. Stateless.
 */
public final class PluginMapper {

    /** What every write-only value reads as in responses. */
    public static final String MASK = "********";
    private static final Pattern COMMAND = Pattern.compile("[A-Za-z0-9._+-]{1,255}");
    private static final Pattern CAPABILITY = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final int MAX_LIST = 1000;

    private PluginMapper() {
    }

    /**
     * Validates {@code req} and copies it onto {@code plugin}. Sensitive values sent as
     * {@link #MASK} keep the value already stored, so a client can PUT back what it read.
     * Capabilities sent (an empty list included) are stored with {@code origin} as their source;
     * a request without them keeps what the plugin itself answered ({@code about}, {@code default})
     * while its executable and pip_url stay the same, else leaves the plugin to be asked again
     * ({@link #capabilities}).
     *
     * @param origin where sent capabilities come from: {@link CapabilitySource#API} or {@link CapabilitySource#PROJECT}
     * @throws InvalidInputException 400 listing every invalid field
     */
    public static void apply(PluginRequest req, Plugin plugin, CapabilitySource origin) {
        List<Problem.FieldError> errors = new ArrayList<>();
        if (req.executable() == null || req.executable().isBlank()) {
            errors.add(new Problem.FieldError("executable", "is required: a command name on PATH or an absolute path"));
        } else {
            checkExecutable(req.executable(), errors);
        }
        List<String> args = strings("args", req.args(), errors);
        List<String> capabilities = strings("capabilities", req.capabilities(), errors);
        for (int i = 0; i < capabilities.size(); i++) {
            if (!CAPABILITY.matcher(capabilities.get(i)).matches()) {
                errors.add(new Problem.FieldError("capabilities[" + i + "]",
                        "must be a lowercase capability name such as catalog, discover, state, properties or about"));
            }
        }
        List<String> sensitive = strings("sensitive", req.sensitive(), errors);
        List<String> select = strings("select", req.select(), errors);
        Map<String, String> env = req.env() == null ? Map.of() : req.env();
        env.forEach((k, v) -> {
            if (!Names.ENV_VAR.matcher(k).matches()) {
                errors.add(new Problem.FieldError("env." + k, "is not a valid environment variable name"));
            } else if (v == null || v.indexOf('\0') >= 0) {
                errors.add(new Problem.FieldError("env." + k, "must be a string without NUL characters"));
            }
        });
        if (req.catalog() != null && !req.catalog().isNull() && !req.catalog().isObject()) {
            errors.add(new Problem.FieldError("catalog", "must be a Singer catalog object ({\"streams\": [...]})"));
        } else if (req.catalog() != null && req.catalog().isObject()
                && !(req.catalog().get("streams") != null && req.catalog().get("streams").isArray())) {
            errors.add(new Problem.FieldError("catalog.streams", "is required and must be an array"));
        }
        meltanoText("namespace", req.namespace(), 200, errors);
        meltanoText("variant", req.variant(), 200, errors);
        meltanoText("pipUrl", req.pipUrl(), 4096, errors);
        io.tapline.plugin.install.PipUrl.validate(req.pipUrl(), python(req.extras()), "pipUrl", "extras.python", errors);
        if (req.inheritFrom() != null && !Names.PLUGIN_NAME.matcher(req.inheritFrom()).matches()) {
            errors.add(new Problem.FieldError("inheritFrom", "must be a plugin name"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors.size() == 1
                    ? errors.get(0).field() + ": " + errors.get(0).message()
                    : errors.size() + " fields are invalid.", errors);
        }
        ObjectNode config = req.config() == null ? Jsons.MAPPER.createObjectNode() : req.config().deepCopy();
        ObjectNode storedConfig = Jsons.readObject(plugin.config);
        Map<String, String> storedEnv = Jsons.readStringMap(plugin.env);
        Map<String, String> newEnv = new LinkedHashMap<>(env);
        for (String path : sensitive) {
            JsonNode incoming = at(config, path);
            if (incoming != null && incoming.isTextual() && incoming.asText().startsWith(SecretCipher.PREFIX)) {
                throw InvalidInputException.field("config." + path, "looks like an encrypted value (" + SecretCipher.PREFIX
                        + "...); send the real value, a reference, or the mask \"" + MASK + "\"");
            }
            if (newEnv.containsKey(path) && newEnv.get(path).startsWith(SecretCipher.PREFIX)) {
                throw InvalidInputException.field("env." + path, "looks like an encrypted value (" + SecretCipher.PREFIX
                        + "...); send the real value, a reference, or the mask \"" + MASK + "\"");
            }
            if (incoming != null && MASK.equals(incoming.asText())) {
                JsonNode stored = at(storedConfig, path);
                if (stored == null) {
                    throw InvalidInputException.field("config." + path, "is the mask \"" + MASK
                            + "\" but no value is stored; send the real value");
                }
                set(config, path, stored.deepCopy());
            }
            if (MASK.equals(newEnv.get(path))) {
                if (!storedEnv.containsKey(path)) {
                    throw InvalidInputException.field("env." + path, "is the mask \"" + MASK
                            + "\" but no value is stored; send the real value");
                }
                newEnv.put(path, storedEnv.get(path));
            }
        }
        String pipUrl;
        try {
            pipUrl = io.tapline.plugin.install.PipUrl.unmasked(req.pipUrl(), plugin.pipUrl);
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("pipUrl", e.getMessage());
        }
        capabilities(req, pipUrl, plugin, capabilities, origin);
        plugin.executable = req.executable().trim();
        plugin.args = Jsons.write(args);
        plugin.config = Jsons.write(config);
        plugin.sensitive = Jsons.write(sensitive);
        plugin.selectPatterns = Jsons.write(select);
        plugin.metadata = Jsons.write(req.metadata() == null ? Jsons.MAPPER.createObjectNode() : req.metadata());
        plugin.catalog = req.catalog() == null || req.catalog().isNull() ? null : Jsons.write(req.catalog());
        plugin.env = Jsons.write(newEnv);
        plugin.namespace = req.namespace();
        plugin.variant = req.variant();
        plugin.pipUrl = pipUrl;
        plugin.inheritFrom = req.inheritFrom();
        plugin.extras = Jsons.write(req.extras() == null ? Jsons.MAPPER.createObjectNode() : req.extras());
    }

    /**
     * The capabilities part of {@link #apply}, before the executable and pip_url are replaced:
     * sent ones are stored with {@code origin}; without them, an answer of the plugin itself is
     * kept while the plugin stays the same program (same executable and pip_url), anything else is
     * cleared so that the plugin is asked before its next use.
     */
    private static void capabilities(PluginRequest req, String pipUrl, Plugin plugin, List<String> sent,
                                     CapabilitySource origin) {
        if (req.capabilities() != null) {
            plugin.capabilities = Jsons.write(sent);
            plugin.capabilitiesSource = origin.id();
            return;
        }
        boolean learned = CapabilitySource.of(plugin.capabilitiesSource).map(s -> !s.given()).orElse(false);
        boolean sameProgram = java.util.Objects.equals(plugin.executable, req.executable().trim())
                && java.util.Objects.equals(plugin.pipUrl, pipUrl);
        if (learned && sameProgram) {
            return;
        }
        plugin.capabilities = "[]";
        plugin.capabilitiesSource = null;
        plugin.about = null;
        plugin.aboutError = null;
        plugin.aboutAt = null;
    }

    /**
     * The warning of a plugin whose capabilities are Meltano's conventional ones because it could
     * not answer {@code --about --format=json}; null otherwise.
     */
    static String capabilitiesWarning(Plugin p) {
        if (!CapabilitySource.DEFAULT.id().equals(p.capabilitiesSource)) {
            return null;
        }
        List<String> caps = Jsons.readStrings(p.capabilities);
        return "The plugin did not answer --about --format=json (" + (p.aboutError == null ? "no answer" : p.aboutError)
                + "), so Meltano's conventional capabilities for " + p.type.id() + " apply: "
                + (caps.isEmpty() ? "none" : String.join(", ", caps))
                + ". List its capabilities (PATCH {\"capabilities\": [...]}) if they are not these.";
    }

    /**
     * Renders a plugin with every sensitive config value (and env value named as sensitive) masked.
     *
     * @param withCatalog include the stored catalog (single-resource reads only)
     */
    public static PluginResponse toResponse(Plugin p, boolean withCatalog) {
        List<String> sensitive = Jsons.readStrings(p.sensitive);
        ObjectNode config = Jsons.readObject(p.config);
        Map<String, String> env = Jsons.readStringMap(p.env);
        for (String path : sensitive) {
            if (at(config, path) != null) {
                set(config, path, TextNode.valueOf(MASK));
            }
            if (env.containsKey(path)) {
                env.put(path, MASK);
            }
        }
        List<String> warnings = new ArrayList<>(PluginChecks.warnings(p.type, p.name, p.executable,
                plainPath(Jsons.readStringMap(p.env).get("PATH")), p.pipUrl));
        String capabilitiesWarning = capabilitiesWarning(p);
        if (capabilitiesWarning != null) {
            warnings.add(capabilitiesWarning);
        }
        return new PluginResponse(p.type.id(), p.name, p.executable, Jsons.readStrings(p.args),
                Jsons.readStrings(p.capabilities), config, sensitive, Jsons.readStrings(p.selectPatterns),
                Jsons.readObject(p.metadata), withCatalog ? Jsons.read(p.catalog) : null, p.catalog != null, env,
                p.version, p.createdAt, p.updatedAt, p.namespace, p.variant,
                io.tapline.plugin.install.PipUrl.masked(p.pipUrl), p.inheritFrom,
                Jsons.readObject(p.extras), List.copyOf(warnings), null, p.capabilitiesSource, p.aboutAt, Map.of());
    }

    /** A plugin env {@code PATH} usable as it is stored: not a reference, not sealed; else null. */
    private static String plainPath(String stored) {
        return stored == null || stored.contains("${") || SecretCipher.isSealed(stored) ? null : stored;
    }

    /**
     * The value at a setting name: the literal key first, else the dotted path into nested objects.
     *
     * @return the value, or null when there is none
     */
    public static JsonNode at(ObjectNode config, String path) {
        if (config.has(path)) {
            return config.get(path);
        }
        JsonNode n = config;
        for (String part : path.split("\\.")) {
            if (n == null || !n.isObject()) {
                return null;
            }
            n = n.get(part);
        }
        return n == config ? null : n;
    }

    /**
     * Replaces the value at a setting name found by {@link #at} (which must exist).
     */
    public static void set(ObjectNode config, String path, JsonNode value) {
        if (config.has(path)) {
            config.set(path, value);
            return;
        }
        String[] parts = path.split("\\.");
        ObjectNode n = config;
        for (int i = 0; i < parts.length - 1; i++) {
            n = (ObjectNode) n.get(parts[i]);
        }
        n.set(parts[parts.length - 1], value);
    }

    private static void checkExecutable(String exe, List<Problem.FieldError> errors) {
        String e = exe.trim();
        if (e.indexOf('\0') >= 0 || e.length() > 4096) {
            errors.add(new Problem.FieldError("executable", "must be at most 4096 characters without NUL"));
        } else if (e.startsWith("/")) {
            if (e.contains("/../") || e.endsWith("/..")) {
                errors.add(new Problem.FieldError("executable", "must be a normalised absolute path (no '..')"));
            }
        } else if (!COMMAND.matcher(e).matches()) {
            errors.add(new Problem.FieldError("executable", "must be a command name on PATH (letters, digits, '.', '_',"
                    + " '+', '-') or an absolute path; it is started directly, never through a shell"));
        }
    }

    /** Meltano's {@code python} kept in extras: its text, null when absent, NUL (refused) when not a string. */
    private static String python(ObjectNode extras) {
        JsonNode py = extras == null ? null : extras.get("python");
        return py == null || py.isNull() ? null : py.isTextual() ? py.asText() : "\0";
    }

    private static void meltanoText(String field, String value, int max, List<Problem.FieldError> errors) {
        if (value != null && (value.length() > max || value.indexOf('\0') >= 0)) {
            errors.add(new Problem.FieldError(field, "must be at most " + max + " characters without NUL"));
        }
    }

    private static List<String> strings(String field, List<String> values, List<Problem.FieldError> errors) {
        if (values == null) {
            return List.of();
        }
        if (values.size() > MAX_LIST) {
            errors.add(new Problem.FieldError(field, "has more than " + MAX_LIST + " items"));
            return List.of();
        }
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            if (v == null || v.indexOf('\0') >= 0) {
                errors.add(new Problem.FieldError(field + "[" + i + "]", "must be a string without NUL characters"));
            }
        }
        return values;
    }
}
