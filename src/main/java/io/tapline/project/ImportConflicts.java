package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.MergePatch;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.DomainException;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginMapper;
import io.tapline.plugin.api.PluginResponse;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What an import does with a plugin that already exists ({@code ?onConflict=}):
 * <ul>
 *   <li>{@link OnConflict#REPLACE}: the document's definition replaces the stored plugin; the plan
 *   lists each secret, setting, env variable and capability that is dropped ({@link #dropped}) and
 *   the pipelines that use the plugin. When {@code onConflict} was not given, replace is guarded:
 *   an import that would drop a secret or a capability ({@link #guardedDrops}) writes nothing and
 *   answers 409 with the plan ({@link #wouldDrop});</li>
 *   <li>{@link OnConflict#MERGE}: the document's values win for what it names; capabilities and
 *   sensitive names are the union, and config and env settings it does not name (secrets
 *   included) are kept ({@link #merged});</li>
 *   <li>{@link OnConflict#FAIL}: nothing is written when an existing plugin or pipeline would
 *   change; 409 naming them.</li>
 * </ul>
 */
final class ImportConflicts {

    private ImportConflicts() {
    }

    /**
     * The plugin request of an import under {@link OnConflict#MERGE}: {@code req} (what the
     * document describes) over the stored plugin. Stored secrets travel as the mask, which keeps
     * their stored value.
     */
    static ObjectNode merged(ObjectNode req, Plugin existing) {
        PluginResponse stored = PluginMapper.toResponse(existing, true);
        ObjectNode r = req.deepCopy();
        boolean storedGiven = CapabilitySource.of(existing.capabilitiesSource).map(CapabilitySource::given)
                .orElse(false);
        if (req.hasNonNull("capabilities") || storedGiven) {
            r.set("capabilities", union(storedGiven ? stored.capabilities() : List.of(), req.path("capabilities")));
        }
        r.set("sensitive", union(stored.sensitive(), req.get("sensitive")));
        r.set("config", MergePatch.apply(stored.config(), req.path("config")));
        ObjectNode env = Jsons.MAPPER.valueToTree(stored.env());
        r.set("env", MergePatch.apply(env, req.path("env")));
        return r;
    }

    /**
     * What replacing {@code existing} by {@code req} drops: {@code "secret NAME"}, {@code "setting NAME"}
     * (top-level config keys), {@code "env NAME"} and {@code "capability NAME"}, in that order.
     */
    static List<String> dropped(ObjectNode req, Plugin existing) {
        List<String> sensitive = Jsons.readStrings(existing.sensitive);
        List<String> out = new ArrayList<>();
        Jsons.readObject(existing.config).fieldNames().forEachRemaining(k -> {
            if (!req.path("config").has(k)) {
                out.add((sensitive.contains(k) ? "secret " : "setting ") + k);
            }
        });
        Jsons.readStringMap(existing.env).keySet().forEach(k -> {
            if (!req.path("env").has(k)) {
                out.add((sensitive.contains(k) ? "secret " : "env ") + k);
            }
        });
        Set<String> kept = new LinkedHashSet<>();
        req.path("capabilities").forEach(c -> kept.add(c.asText()));
        boolean given = CapabilitySource.of(existing.capabilitiesSource).map(CapabilitySource::given).orElse(false);
        for (String c : given ? Jsons.readStrings(existing.capabilities) : List.<String>of()) {
            if (!kept.contains(c)) {
                out.add("capability " + c);
            }
        }
        return out;
    }

    /**
     * The entries of {@link #dropped} that a replace may make only when asked explicitly
     * ({@code onConflict=replace}): {@code "secret NAME"} (a sealed config value or a sensitive env
     * variable the document does not name) and {@code "capability NAME"}.
     */
    static List<String> guardedDrops(List<String> dropped) {
        return dropped.stream().filter(d -> d.startsWith("secret ") || d.startsWith("capability ")).toList();
    }

    /**
     * 409 {@code already-exists} for an import without {@code onConflict} that would drop secrets or
     * capabilities: the detail names each plugin and what it would lose (names only, never
     * values); members {@code conflicts} ({@code TYPE/NAME} of those plugins), {@code drops}
     * ({@code [{type, name, path, dropped}]}, {@code dropped} as in {@link #guardedDrops}) and
     * {@code plan} (the whole plan, as the 200 answer would carry it).
     *
     * @param items the plan's plugin items whose {@link #guardedDrops} are not empty
     * @param plan the plan as JSON
     */
    static DomainException wouldDrop(List<ImportOutcome.Item> items, Object plan) {
        List<String> names = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        List<java.util.Map<String, Object>> drops = new ArrayList<>();
        for (ImportOutcome.Item i : items) {
            List<String> lost = guardedDrops(i.dropped());
            names.add(i.type() + "/" + i.name());
            parts.add(i.type() + "/" + i.name() + " (" + String.join(", ", lost) + ")");
            java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
            d.put("type", i.type());
            d.put("name", i.name());
            d.put("path", i.path());
            d.put("dropped", lost);
            drops.add(d);
        }
        return new ConflictException(ConflictException.Reason.ALREADY_EXISTS, "The import would drop stored secrets"
                + " or capabilities of " + String.join(", ", parts) + "; nothing was written. Send onConflict=replace"
                + " to drop them, or onConflict=merge to keep what the document does not name.")
                .with("conflicts", names).with("drops", drops).with("plan", plan);
    }

    /** 409 for {@link OnConflict#FAIL}, naming every existing item the import would change. */
    static DomainException conflict(List<String> items) {
        return new ConflictException(ConflictException.Reason.ALREADY_EXISTS, "The import would change " + items.size()
                + " existing item(s): " + String.join(", ", items) + "; nothing was written. Use onConflict=merge"
                + " to keep what the document does not name, or onConflict=replace.").with("conflicts", items);
    }

    private static ArrayNode union(List<String> first, JsonNode second) {
        Set<String> all = new LinkedHashSet<>(first);
        second.forEach(n -> all.add(n.asText()));
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        all.forEach(a::add);
        return a;
    }
}
