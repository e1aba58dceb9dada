package io.tapline.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Change summaries for audit events: which top-level fields of a resource differ, and for
 * name-to-value maps (such as {@code env}) which names were added, changed or removed. Only names
 * are reported, never values.
 */
public final class AuditDiff {

    /** Jsons' mapper plus Java time types (API records carry timestamps). */
    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = Jsons.MAPPER.copy()
            .registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule());

    private AuditDiff() {
    }

    /**
     * Summarises the change from {@code before} to {@code after} (API records or JSON trees).
     *
     * @param before the resource before, or null when it was created
     * @param after the resource after
     * @param ignore fields never reported (version, timestamps)
     * @param maps fields whose own keys are reported as {@code {added, changed, removed}}
     * @return {@code {"changed": [fields], "<map>": {...}}}, or {@code {"fields": [...]}} on create
     */
    public static Map<String, Object> summary(Object before, Object after, Set<String> ignore, Set<String> maps) {
        ObjectNode b = before == null ? null : (ObjectNode) MAPPER.valueToTree(before);
        ObjectNode a = (ObjectNode) MAPPER.valueToTree(after);
        List<String> fields = new ArrayList<>();
        Map<String, Object> out = new LinkedHashMap<>();
        a.fieldNames().forEachRemaining(f -> {
            if (ignore.contains(f)) {
                return;
            }
            JsonNode av = a.get(f);
            JsonNode bv = b == null ? null : b.get(f);
            if (b == null ? !(av == null || av.isNull() || av.isEmpty() && av.isContainerNode()) : !av.equals(bv)) {
                fields.add(f);
                if (maps.contains(f) && av.isObject()) {
                    Map<String, List<String>> names = names(bv instanceof ObjectNode o ? o : null, (ObjectNode) av);
                    if (!names.isEmpty()) {
                        out.put(f, names);
                    }
                }
            }
        });
        out.put(b == null ? "fields" : "changed", fields);
        return out;
    }

    /** Names added, changed and removed between two objects (keys only). */
    public static Map<String, List<String>> names(ObjectNode before, ObjectNode after) {
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        after.fieldNames().forEachRemaining(k -> {
            if (before == null || !before.has(k)) {
                added.add(k);
            } else if (!before.get(k).equals(after.get(k))) {
                changed.add(k);
            }
        });
        if (before != null) {
            before.fieldNames().forEachRemaining(k -> {
                if (!after.has(k)) {
                    removed.add(k);
                }
            });
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (!added.isEmpty()) {
            out.put("added", added);
        }
        if (!changed.isEmpty()) {
            out.put("changed", changed);
        }
        if (!removed.isEmpty()) {
            out.put("removed", removed);
        }
        return out;
    }
}
