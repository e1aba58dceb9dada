package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.StateIds;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginMapper;
import io.tapline.project.model.ProjectModel.PipelineDef;
import io.tapline.project.model.ProjectModel.PluginDef;

import java.util.ArrayList;
import java.util.List;

/**
 * What an import asks of the plugin and pipeline services, as the JSON of their requests: the
 * request that makes a stored plugin or pipeline what the document describes (keeping what the
 * document does not describe: a plugin's {@code args} (unless annotated) and catalog, a pipeline's state strategy,
 * commit policy, timeout, retry, pause (unless annotated), executor and, without a schedule time zone, its zone), and
 * the fields (API names) in which it differs from what is stored, for the plan's {@code changes}.
 * {@link ProjectService} reads these trees into the services' request records.
 */
final class ImportRequests {

    private static final List<String> PLUGIN_FIELDS = List.of("executable", "args", "capabilities", "config", "sensitive",
            "select", "metadata", "env", "namespace", "variant", "pipUrl", "inheritFrom", "extras");
    private static final List<String> PIPELINE_FIELDS = List.of("extractor", "mappers", "loader", "transform",
            "environment", "stateIdSuffix", "stateId", "schedule.interval", "schedule.timezone", "schedule.enabled", "env",
            "meltanoJob");

    private ImportRequests() {
    }

    /**
     * The request that makes the stored plugin equal to {@code d}, keeping what the document does not describe.
     *
     * @param lineage the plugin and the plugins it inherits from: a secret exported as the reference
     *     of any of them ({@code ${PLUGIN_SETTING}}) keeps the value stored here
     */
    static ObjectNode pluginRequest(PluginDef d, Plugin existing, List<String> lineage) {
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("name", d.name());
        r.put("executable", d.executable());
        r.set("args", d.args() != null ? strings(d.args())
                : existing == null ? JsonNodeFactory.instance.arrayNode() : Jsons.read(existing.args));
        r.set("capabilities", d.capabilities() == null ? NullNode.instance : strings(d.capabilities()));
        ObjectNode config = d.config().deepCopy();
        if (existing != null) {
            // A secret exported as its ${PLUGIN_SETTING} reference keeps the value stored here.
            ObjectNode stored = Jsons.readObject(existing.config);
            for (String s : d.sensitive()) {
                JsonNode incoming = config.get(s);
                JsonNode kept = stored.get(s);
                if (incoming != null && lineage.stream().anyMatch(n -> incoming.asText().equals(
                        SensitiveNames.reference(n, s))) && kept != null
                        && kept.isValueNode() && !SensitiveNames.isReference(kept.asText())
                        && Jsons.readStrings(existing.sensitive).contains(s)) {
                    config.put(s, PluginMapper.MASK);
                }
            }
        }
        r.set("config", config);
        r.set("sensitive", strings(d.sensitive()));
        r.set("select", strings(d.select()));
        r.set("metadata", d.metadata());
        r.set("catalog", existing == null || existing.catalog == null ? NullNode.instance : Jsons.read(existing.catalog));
        ObjectNode env = Jsons.MAPPER.valueToTree(d.env());
        if (existing != null) {
            // A sensitive env variable is exported as ${NAME} (its own name); reading that back keeps
            // the value stored here instead of storing the reference text in its place.
            java.util.Map<String, String> storedEnv = Jsons.readStringMap(existing.env);
            List<String> storedSensitive = Jsons.readStrings(existing.sensitive);
            env.fields().forEachRemaining(f -> {
                String kept = storedEnv.get(f.getKey());
                if (d.sensitive().contains(f.getKey()) && storedSensitive.contains(f.getKey()) && kept != null
                        && f.getValue().isTextual() && f.getValue().asText().equals("${" + f.getKey() + "}")
                        && !SensitiveNames.isReference(kept)) {
                    f.setValue(com.fasterxml.jackson.databind.node.TextNode.valueOf(PluginMapper.MASK));
                }
            });
        }
        r.set("env", env);
        // The export gives a plugin without namespace the one Meltano derives from its name; reading
        // that back keeps the stored plugin as it was.
        boolean derivedNamespace = existing != null && existing.namespace == null && d.inheritFrom() == null
                && d.name().replace('-', '_').equals(d.namespace());
        r.put("namespace", derivedNamespace ? null : d.namespace());
        r.put("variant", d.variant());
        r.put("pipUrl", d.pipUrl());
        r.put("inheritFrom", d.inheritFrom());
        r.set("extras", d.extras());
        return r;
    }

    static List<String> pluginChanges(ObjectNode req, Plugin p) {
        ObjectNode stored = JsonNodeFactory.instance.objectNode();
        stored.put("executable", p.executable);
        stored.set("args", Jsons.read(p.args));
        // capabilities the plugin answered itself (or not yet) are what a document without any describes
        boolean given = CapabilitySource.of(p.capabilitiesSource).map(CapabilitySource::given).orElse(false);
        stored.set("capabilities", !given && !req.hasNonNull("capabilities") ? NullNode.instance
                : Jsons.read(p.capabilities));
        stored.set("config", Jsons.read(p.config));
        stored.set("sensitive", Jsons.read(p.sensitive));
        stored.set("select", Jsons.read(p.selectPatterns));
        stored.set("metadata", Jsons.read(p.metadata));
        stored.set("env", Jsons.read(p.env));
        stored.put("namespace", p.namespace);
        stored.put("variant", p.variant);
        stored.put("pipUrl", p.pipUrl);
        stored.put("inheritFrom", p.inheritFrom);
        stored.set("extras", Jsons.read(p.extras));
        ObjectNode wanted = req.deepCopy();
        ObjectNode config = (ObjectNode) wanted.get("config");
        ObjectNode storedConfig = (ObjectNode) stored.get("config");
        config.fields().forEachRemaining(f -> {
            if (f.getValue().isTextual() && PluginMapper.MASK.equals(f.getValue().asText()) && storedConfig.has(f.getKey())) {
                f.setValue(storedConfig.get(f.getKey()));
            }
        });
        if (wanted.get("env") instanceof ObjectNode wantedEnv && stored.get("env") instanceof ObjectNode storedEnv) {
            wantedEnv.fields().forEachRemaining(f -> {
                if (f.getValue().isTextual() && PluginMapper.MASK.equals(f.getValue().asText())
                        && storedEnv.has(f.getKey())) {
                    f.setValue(storedEnv.get(f.getKey()));
                }
            });
        }
        wanted.set("extras", impliedSettingsRemoved(wanted.get("extras"), wanted.get("sensitive"), config));
        stored.set("extras", impliedSettingsRemoved(stored.get("extras"), stored.get("sensitive"), storedConfig));
        List<String> changes = new ArrayList<>();
        for (String f : PLUGIN_FIELDS) {
            if (!same(wanted.get(f), stored.get(f))) {
                changes.add(f);
            }
        }
        return changes;
    }

    /**
     * Extras without the settings entries that the export adds by itself ({@link SettingKinds#withoutImplied}):
     * {@code {name, kind: password}} of a sensitive name and {@code {name, kind}} of a config key of
     * that kind, so they are not a change.
     */
    private static JsonNode impliedSettingsRemoved(JsonNode extras, JsonNode sensitive, JsonNode config) {
        if (!(extras instanceof ObjectNode e) || !(e.get("settings") instanceof ArrayNode settings)) {
            return extras;
        }
        List<String> names = new ArrayList<>();
        if (sensitive != null) {
            sensitive.forEach(n -> names.add(n.asText()));
        }
        ArrayNode kept = SettingKinds.withoutImplied(settings, names, config);
        ObjectNode out = e.deepCopy();
        if (kept == null) {
            out.remove("settings");
        } else {
            out.set("settings", kept);
        }
        return out;
    }

    /** The request that makes the stored pipeline equal to {@code d}, keeping what the document does not describe. */
    static ObjectNode pipelineRequest(PipelineDef d, ObjectNode current) {
        ObjectNode r = current == null ? JsonNodeFactory.instance.objectNode() : current.deepCopy();
        for (String responseOnly : List.of("stateIdDerived", "version", "createdAt", "updatedAt", "nextRunAt",
                "lastRun", "warnings")) {
            r.remove(responseOnly);
        }
        if (current != null && current.path("stateIdDerived").asBoolean(false)) {
            r.remove("stateId");
        }
        r.put("name", d.name());
        r.put("extractor", d.extractor());
        r.set("mappers", strings(d.mappers()));
        r.put("loader", d.loader());
        if (d.transform() == null) {
            r.remove("transform");
        } else {
            ObjectNode t = r.putObject("transform");
            t.put("plugin", d.transform());
            t.set("args", strings(d.transformArgs()));
        }
        r.put("environment", d.environment());
        if (d.stateIdSuffix() == null) {
            r.remove("stateIdSuffix");
        } else {
            r.put("stateIdSuffix", d.stateIdSuffix());
        }
        if (d.stateId() == null) {
            r.remove("stateId");
        } else {
            r.put("stateId", d.stateId());
        }
        ObjectNode schedule = r.get("schedule") instanceof ObjectNode s ? s : r.putObject("schedule");
        schedule.put("interval", d.interval());
        if (d.timezone() != null) {
            schedule.put("timezone", d.timezone());
        } else if (!schedule.has("timezone")) {
            schedule.put("timezone", "UTC");
        }
        if (d.enabled() != null) {
            schedule.put("enabled", d.enabled());
        }
        r.set("env", Jsons.MAPPER.valueToTree(d.env()));
        // The export writes a pipeline made through the API as a job named after it; reading that
        // back does not make the pipeline a job pipeline.
        boolean ownNameJob = current != null && (!current.has("meltanoJob") || current.get("meltanoJob").isNull());
        r.put("meltanoJob", ownNameJob && d.name().equals(d.meltanoJob()) ? null : d.meltanoJob());
        return r;
    }

    static List<String> pipelineChanges(PipelineDef d, ObjectNode req, ObjectNode current) {
        ObjectNode wanted = req.deepCopy();
        wanted.put("stateId", d.stateId() != null ? d.stateId()
                : StateIds.derive(d.environment(), d.extractor(), d.loader(), d.stateIdSuffix()));
        List<String> changes = new ArrayList<>();
        for (String f : PIPELINE_FIELDS) {
            if (!same(wanted.at("/" + f.replace('.', '/')), current.at("/" + f.replace('.', '/')))) {
                changes.add(f);
            }
        }
        return changes;
    }

    /** Equal as JSON, with numbers compared by value and missing equal to null. */
    private static boolean same(JsonNode a, JsonNode b) {
        JsonNode x = a == null || a.isMissingNode() ? NullNode.instance : a;
        JsonNode y = b == null || b.isMissingNode() ? NullNode.instance : b;
        return Jsons.read(Jsons.write(x)).equals(Jsons.read(Jsons.write(y)));
    }

    private static ArrayNode strings(List<String> values) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        values.forEach(a::add);
        return a;
    }
}
