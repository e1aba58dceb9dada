package io.tapline.project.meltano;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.common.api.Names;
import io.tapline.plugin.PluginType;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks that every key Tapline reads has the shape {@link MeltanoDocument} declares, with an
 * error at its YAML path when not, and prepares the tree for binding: a value of the wrong shape is
 * replaced by the empty value of its type (null for a single value, {@code []}, <code>{}</code>),
 * an explicit null list or mapping by an empty one (it was written), single values by their text,
 * and a list entry that cannot be read by null (so indices stay those of the YAML). Binding the
 * result then cannot fail.
 *
 * <p>Only shapes are checked here; what the values mean (names, references, intervals) is checked
 * where they are used. Environments are checked beyond their names only when the reader applies
 * them ({@link Issues#reportScope}); keys Tapline keeps without reading ({@code state_backend},
 * other plugin types, descriptive plugin keys) are not checked.
 */
final class DocumentShape {

    private static final List<String> SCALAR_KEYS = List.of("name", "inherit_from", "namespace", "variant", "pip_url",
            "executable");
    private static final List<String> SCHEDULE_SCALARS = List.of("interval", "timezone", "job", "extractor", "loader",
            "transform");

    private final Issues issues;
    /** The environment whose contents are being checked ({@code environments[i]}), or null. */
    private String scope;

    private DocumentShape(Issues issues) {
        this.issues = issues;
    }

    /**
     * The checked copy of {@code root}, ready to bind; errors go to {@code issues}.
     *
     * @param root the document as parsed (not changed)
     */
    static ObjectNode check(ObjectNode root, Issues issues) {
        ObjectNode doc = root.deepCopy();
        new DocumentShape(issues).document(doc);
        return doc;
    }

    private void document(ObjectNode doc) {
        JsonNode version = doc.get("version");
        if (version != null && !(version.isNumber() && version.asInt() == 1 && version.asText().equals("1"))) {
            error("version", "must be 1 (the only meltano.yml version)");
            doc.remove("version");
        }
        single(doc, "default_environment", "default_environment");
        ArrayNode environments = list(doc, "environments", "environments", "must be a list");
        for (int i = 0; i < environments.size(); i++) {
            environments.set(i, environment(environments.get(i), "environments[" + i + "]"));
        }
        plugins(doc);
        ArrayNode jobs = list(doc, "jobs", "jobs", "must be a list");
        for (int i = 0; i < jobs.size(); i++) {
            jobs.set(i, job(jobs.get(i), "jobs[" + i + "]"));
        }
        ArrayNode schedules = list(doc, "schedules", "schedules", "must be a list");
        for (int i = 0; i < schedules.size(); i++) {
            schedules.set(i, schedule(schedules.get(i), "schedules[" + i + "]"));
        }
        if (doc.has("state_backend")) {
            if (doc.get("state_backend") instanceof ObjectNode backend) {
                if (backend.has("uri") && !backend.get("uri").isValueNode()) {
                    backend.remove("uri");
                } else if (backend.has("uri") && !backend.get("uri").isNull()) {
                    backend.put("uri", backend.get("uri").asText());
                }
            } else {
                doc.remove("state_backend"); // kept for the export as written; not read
            }
        }
    }

    // ---- environments --------------------------------------------------------------------------

    private JsonNode environment(JsonNode node, String path) {
        if (!(node instanceof ObjectNode e)) {
            error(path, "must be a mapping with a name");
            return null;
        }
        if (single(e, "name", path + ".name") == null) {
            error(path + ".name", "is required");
            return null;
        }
        scope = path;
        try {
            envMap(e, "env", path + ".env");
            single(e, "state_id_suffix", path + ".state_id_suffix");
            if (e.has("config") && !(e.get("config") instanceof ObjectNode)) {
                e.remove("config"); // Meltano reads only config.plugins; a config of another shape has none
            }
            if (e.get("config") instanceof ObjectNode config) {
                overlays(config, path + ".config.plugins");
            }
        } finally {
            scope = null;
        }
        return e;
    }

    private void overlays(ObjectNode config, String path) {
        JsonNode plugins = config.get("plugins");
        if (plugins == null || plugins.isNull()) {
            config.remove("plugins");
            return;
        }
        if (!(plugins instanceof ObjectNode p)) {
            error(path, "must be a mapping of plugin types");
            config.remove("plugins");
            return;
        }
        for (PluginType type : PluginType.values()) {
            String tp = path + "." + type.id();
            if (!p.has(type.id())) {
                continue;
            }
            if (!(p.get(type.id()) instanceof ArrayNode a)) {
                error(tp, "must be a list of plugin overlays");
                p.remove(type.id());
                continue;
            }
            for (int i = 0; i < a.size(); i++) {
                String ip = tp + "[" + i + "]";
                if (!(a.get(i) instanceof ObjectNode o) || !o.path("name").isTextual()) {
                    error(ip + ".name", "is required");
                    a.set(i, (JsonNode) null);
                    continue;
                }
                mapping(o, "config", ip + ".config");
                mapping(o, "metadata", ip + ".metadata");
                strings(o, "select", ip + ".select");
                envMap(o, "env", ip + ".env");
            }
        }
    }

    // ---- plugins -------------------------------------------------------------------------------

    private void plugins(ObjectNode doc) {
        JsonNode plugins = doc.get("plugins");
        if (plugins == null || plugins.isNull()) {
            doc.remove("plugins");
            return;
        }
        if (!(plugins instanceof ObjectNode p)) {
            error("plugins", "must be a mapping of plugin types (extractors, loaders, ...)");
            doc.remove("plugins");
            return;
        }
        for (PluginType type : PluginType.values()) {
            String path = "plugins." + type.id();
            JsonNode list = p.get(type.id());
            if (list == null || list.isNull()) {
                p.remove(type.id());
                continue;
            }
            if (!(list instanceof ArrayNode a)) {
                error(path, "must be a list of plugins");
                p.remove(type.id());
                continue;
            }
            for (int i = 0; i < a.size(); i++) {
                a.set(i, plugin(a.get(i), type, path + "[" + i + "]"));
            }
        }
    }

    private JsonNode plugin(JsonNode node, PluginType type, String path) {
        if (!(node instanceof ObjectNode o)) {
            error(path, "must be a mapping with a name");
            return null;
        }
        for (String k : SCALAR_KEYS) {
            single(o, k, path + "." + k);
        }
        if (!o.has("name")) {
            error(path + ".name", "is required");
            return null;
        }
        strings(o, "capabilities", path + ".capabilities");
        mapping(o, "config", path + ".config");
        strings(o, "select", path + ".select");
        mapping(o, "metadata", path + ".metadata");
        envMap(o, "env", path + ".env");
        JsonNode settings = o.get("settings");
        if (settings != null && !settings.isNull()) {
            if (!(settings instanceof ArrayNode sa)) {
                error(path + ".settings", "must be a list of settings");
            } else {
                for (int i = 0; i < sa.size(); i++) {
                    if (!(sa.get(i) instanceof ObjectNode s) || !s.path("name").isTextual()) {
                        error(path + ".settings[" + i + "].name", "is required");
                    }
                }
            }
        }
        if (type == PluginType.MAPPERS && o.get("mappings") instanceof ArrayNode mappings) {
            for (int i = 0; i < mappings.size(); i++) {
                String mp = path + ".mappings[" + i + "]";
                if (!(mappings.get(i) instanceof ObjectNode m) || !m.path("name").isTextual()) {
                    error(mp + ".name", "is required");
                } else if (m.has("config") && !m.get("config").isNull() && !(m.get("config") instanceof ObjectNode)) {
                    error(mp + ".config", "must be a mapping");
                }
            }
        }
        return o;
    }

    // ---- schedules and jobs ----------------------------------------------------------------------

    private JsonNode job(JsonNode node, String path) {
        if (!(node instanceof ObjectNode j) || single(j, "name", path + ".name") == null) {
            error(path + ".name", "is required");
            return null;
        }
        JsonNode tasks = j.get("tasks");
        if (tasks == null || tasks.isNull()) {
            error(path + ".tasks", "is required");
            j.remove("tasks");
        } else if (tasks instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                JsonNode t = a.get(i);
                if (t instanceof ArrayNode inner) {
                    for (int k = 0; k < inner.size(); k++) {
                        if (!inner.get(k).isTextual()) {
                            error(path + ".tasks[" + i + "][" + k + "]", "must be a string of plugin names");
                        }
                    }
                } else if (!t.isTextual()) {
                    error(path + ".tasks[" + i + "]", "must be a string or a list of strings");
                    a.set(i, JsonNodeFactory.instance.arrayNode());
                }
            }
        } else if (!tasks.isTextual()) {
            error(path + ".tasks", "must be a string or a list");
            j.remove("tasks");
        }
        return j;
    }

    private JsonNode schedule(JsonNode node, String path) {
        if (!(node instanceof ObjectNode s)) {
            error(path, "must be a mapping");
            return null;
        }
        if (single(s, "name", path + ".name") == null) {
            error(path + ".name", "is required");
            return null;
        }
        for (String k : SCHEDULE_SCALARS) {
            single(s, k, path + "." + k);
        }
        envMap(s, "env", path + ".env");
        return s;
    }

    // ---- shapes ----------------------------------------------------------------------------------

    /** A single value (text, number, boolean) as its text; null (and removed) when absent, null or not one. */
    private String single(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v == null || v.isNull()) {
            o.remove(key);
            return null;
        }
        if (!v.isValueNode()) {
            error(path, "must be a single value, not a " + (v.isArray() ? "list" : "mapping"));
            o.remove(key);
            return null;
        }
        o.put(key, v.asText());
        return v.asText();
    }

    /** The list under {@code key}, {@code []} when absent, null or of another shape (then an error). */
    private ArrayNode list(ObjectNode o, String key, String path, String message) {
        JsonNode v = o.get(key);
        if (v instanceof ArrayNode a) {
            return a;
        }
        if (v != null && !v.isNull()) {
            error(path, message);
        }
        return o.putArray(key);
    }

    private void strings(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v == null) {
            return;
        }
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        if (v instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                if (!a.get(i).isValueNode() || a.get(i).isNull()) {
                    error(path + "[" + i + "]", "must be a string");
                } else {
                    out.add(a.get(i).asText());
                }
            }
        } else if (!v.isNull()) {
            error(path, "must be a list of strings");
        }
        o.set(key, out);
    }

    private void mapping(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v == null || v instanceof ObjectNode) {
            return;
        }
        if (!v.isNull()) {
            error(path, "must be a mapping");
        }
        o.putObject(key);
    }

    private void envMap(ObjectNode o, String key, String path) {
        JsonNode v = o.get(key);
        if (v == null) {
            return;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        if (v instanceof ObjectNode ob) {
            List<String> names = new ArrayList<>();
            ob.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode value = ob.get(name);
                if (!Names.ENV_VAR.matcher(name).matches()) {
                    error(path + "." + name, "is not a valid environment variable name");
                } else if (!value.isValueNode() || value.isNull()) {
                    error(path + "." + name, "must be a single value");
                } else {
                    out.set(name, TextNode.valueOf(value.asText()));
                }
            }
        } else if (!v.isNull()) {
            error(path, "must be a mapping of variable names to values");
        }
        o.set(key, out);
    }

    private void error(String path, String message) {
        if (scope != null) {
            issues.errorIn(scope, path, message);
        } else {
            issues.error(path, message);
        }
    }
}
