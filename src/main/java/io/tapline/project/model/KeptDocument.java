package io.tapline.project.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.PluginType;
import io.tapline.project.SensitiveNames;
import io.tapline.project.meltano.Conventions;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parts of a meltano.yml that Tapline keeps as written for the export, with secrets replaced
 * by references ({@link Sanitizer}): the top-level keys it does not read ({@code state_backend},
 * {@code project_id}, ...; each reported), {@code default_environment}, every environment (its
 * {@code env}, {@code state_id_suffix}, plugin overlays and other keys), plugin types Tapline does
 * not run ({@code otherPlugins}), the plugins read without {@code namespace}
 * ({@link Conventions#HUB_PLUGINS}), the schedules without a time zone
 * ({@code schedulesWithoutTimezone}), and, for an import of every environment, which pipeline each
 * schedule or job made in each environment ({@value Conventions#ENVIRONMENT_PIPELINES}), so that
 * the export writes them as one schedule again. The plugin overlays of the environments are not
 * kept here: they are stored per plugin and environment ({@code plugin_environment}).
 */
final class KeptDocument {

    /** Top-level keys Tapline reads. */
    private static final Set<String> READ = Set.of("version", "default_environment", "environments", "plugins",
            "schedules", "jobs");
    private KeptDocument() {
    }

    /**
     * The document to store.
     *
     * @param root the document as parsed
     * @param doc the document as bound (its valid entries)
     * @param environments the environments as the import uses them
     * @param plugins the plugin entries read ({@link PluginPlanner#entries()})
     * @param withoutTimezone schedules without {@code timezone} ({@link PipelinePlanner#schedulesWithoutTimezone()})
     * @param perEnvironment the pipelines of each schedule or job by environment ({@link PipelinePlanner#perEnvironment()})
     */
    static ObjectNode of(ObjectNode root, MeltanoDocument doc, EnvironmentChoice environments,
                         Map<PluginType, Map<String, PluginPlanner.Entry>> plugins, List<String> withoutTimezone,
                         Map<String, Map<String, String>> perEnvironment, Issues issues) {
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        root.fields().forEachRemaining(f -> {
            if (!READ.contains(f.getKey())) {
                issues.unsupported(f.getKey(), reason(f.getKey()));
                document.set(f.getKey(), Sanitizer.sanitize(f.getValue(), "MELTANO_" + f.getKey()));
            }
        });
        if (environments.defaultEnvironment() != null) {
            document.put("default_environment", environments.defaultEnvironment());
        }
        document.set("environments", environments(root, doc, environments));
        ObjectNode otherPlugins = JsonNodeFactory.instance.objectNode();
        if (root.get("plugins") instanceof ObjectNode p) {
            p.fields().forEachRemaining(f -> {
                if (Arrays.stream(PluginType.values()).noneMatch(t -> t.id().equals(f.getKey()))) {
                    otherPlugins.set(f.getKey(), Sanitizer.sanitize(f.getValue(), "MELTANO"));
                }
            });
        }
        if (!otherPlugins.isEmpty()) {
            document.set("otherPlugins", otherPlugins);
        }
        ArrayNode hub = document.putArray(Conventions.HUB_PLUGINS);
        plugins.forEach((type, named) -> named.values().forEach(e -> {
            if (e.plugin().namespace() == null && e.plugin().inheritFrom() == null) {
                hub.add(type.id() + "/" + e.name());
            }
        }));
        ArrayNode noTz = document.putArray("schedulesWithoutTimezone");
        withoutTimezone.forEach(noTz::add);
        if (!perEnvironment.isEmpty()) {
            document.set(Conventions.ENVIRONMENT_PIPELINES, Jsons.MAPPER.valueToTree(perEnvironment));
        }
        return document;
    }

    private static String reason(String key) {
        return switch (key) {
            case "state_backend" -> "Tapline keeps state in PostgreSQL; to share it with Meltano set"
                    + " tapline.state.mirror-dir to this file backend's directory (kept for the export)";
            case "project_id", "send_anonymous_usage_stats" -> "Meltano telemetry; Tapline sends none"
                    + " (kept for the export)";
            default -> "not a key Tapline uses (kept for the export)";
        };
    }

    /**
     * Each environment as written (the last entry of a name given twice), without the plugin
     * overlays of the plugin types Tapline runs (stored per plugin and environment).
     */
    private static ArrayNode environments(ObjectNode root, MeltanoDocument doc, EnvironmentChoice environments) {
        Map<String, ObjectNode> written = new HashMap<>();
        for (int i = 0; i < doc.environments().size(); i++) {
            if (doc.environments().get(i) != null && root.get("environments").get(i) instanceof ObjectNode e) {
                written.put(doc.environments().get(i).name(), e);
            }
        }
        List<String> names = environments.names();
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < names.size(); i++) {
            ObjectNode kept = out.addObject();
            kept.put("name", names.get(i));
            written.get(names.get(i)).fields().forEachRemaining(f -> {
                JsonNode v = f.getValue();
                switch (f.getKey()) {
                    case "name" -> {
                    }
                    case "state_id_suffix" -> kept.set("state_id_suffix", v);
                    case "config" -> {
                        ObjectNode config = withoutOverlays(v);
                        if (!config.isEmpty()) {
                            kept.set("config", Sanitizer.sanitize(config, "MELTANO_ENV"));
                        }
                    }
                    default -> kept.set(f.getKey(), Sanitizer.sanitize(v, "MELTANO_ENV"));
                }
            });
        }
        return out;
    }

    /** An environment's {@code config} without the overlays of the plugin types Tapline runs. */
    private static ObjectNode withoutOverlays(JsonNode config) {
        ObjectNode out = config instanceof ObjectNode o ? o.deepCopy() : JsonNodeFactory.instance.objectNode();
        if (out.get("plugins") instanceof ObjectNode plugins) {
            Arrays.stream(PluginType.values()).forEach(t -> plugins.remove(t.id()));
            if (plugins.isEmpty()) {
                out.remove("plugins");
            }
        }
        return out;
    }
}
