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
 * ({@code schedulesWithoutTimezone}), and {@value #OVERLAID_BASE}: for each plugin that the
 * imported environment overlays, the base values of what the overlay sets (the stored plugin holds
 * them merged), so that the export writes base and overlay apart again instead of turning one
 * environment's values into everyone's.
 */
final class KeptDocument {

    /** Top-level keys Tapline reads. */
    private static final Set<String> READ = Set.of("version", "default_environment", "environments", "plugins",
            "schedules", "jobs");
    /**
     * Key of the stored document: {@code {"<type>/<name>": {config: {k: base value}, env: {...},
     * metadata: {...}, select: [...], absent: {config: [k], env: [k], metadata: [k]}}}}, only the
     * keys the imported environment's overlay sets; sensitive values as references.
     */
    static final String OVERLAID_BASE = Conventions.OVERLAID_BASE;

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
     */
    static ObjectNode of(ObjectNode root, MeltanoDocument doc, EnvironmentChoice environments,
                         Map<PluginType, Map<String, PluginPlanner.Entry>> plugins,
                         Map<String, PluginPlanner.Base> bases, List<String> withoutTimezone, Issues issues) {
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
        ObjectNode overlaid = overlaidBase(environments, bases);
        if (!overlaid.isEmpty()) {
            document.set(OVERLAID_BASE, overlaid);
        }
        return document;
    }

    /** {@link #OVERLAID_BASE} of the imported environment's overlays. */
    private static ObjectNode overlaidBase(EnvironmentChoice environments, Map<String, PluginPlanner.Base> bases) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        environments.overlays().forEach((type, named) -> named.forEach((name, o) -> {
            PluginPlanner.Base base = bases.get(type.id() + "/" + name);
            if (base == null) {
                return;
            }
            MeltanoDocument.PluginOverlay overlay = o.overlay();
            ObjectNode entry = JsonNodeFactory.instance.objectNode();
            ObjectNode absent = JsonNodeFactory.instance.objectNode();
            String prefix = SensitiveNames.envVar(name, "x");
            prefix = prefix.substring(0, prefix.length() - 2);
            if (overlay.config() != null) {
                entry.set("config", Sanitizer.sanitize(keysOf(base.config(), overlay.config(), base.sensitive(),
                        name, absent.putArray("config")), prefix));
            }
            if (overlay.metadata() != null) {
                entry.set("metadata", keysOf(base.metadata(), overlay.metadata(), List.of(), name,
                        absent.putArray("metadata")));
            }
            if (overlay.env() != null) {
                ObjectNode env = Jsons.MAPPER.valueToTree(base.env());
                ObjectNode set = Jsons.MAPPER.valueToTree(overlay.env());
                entry.set("env", Sanitizer.sanitize(keysOf(env, set, base.sensitive(), name, absent.putArray("env")),
                        prefix));
            }
            if (overlay.select() != null) {
                ArrayNode select = entry.putArray("select");
                base.select().forEach(select::add);
            }
            entry.set("absent", absent);
            out.set(type.id() + "/" + name, entry);
        }));
        return out;
    }

    /**
     * The base's values of the keys {@code overlay} sets (a sensitive one as its reference); the
     * keys the base lacks are added to {@code absent}.
     */
    private static ObjectNode keysOf(ObjectNode base, ObjectNode overlay, List<String> sensitive, String plugin,
                                     ArrayNode absent) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        overlay.fieldNames().forEachRemaining(k -> {
            if (!base.has(k)) {
                absent.add(k);
            } else if (sensitive.contains(k)) {
                out.put(k, SensitiveNames.reference(plugin, k));
            } else {
                out.set(k, base.get(k).deepCopy());
            }
        });
        return out;
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

    /** Each environment as written (the last entry of a name given twice), without the imported one's overlays. */
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
                    case "config" -> kept.set("config", Sanitizer.sanitize(v, "MELTANO_ENV"));
                    default -> kept.set(f.getKey(), Sanitizer.sanitize(v, "MELTANO_ENV"));
                }
            });
        }
        return out;
    }
}
