package io.tapline.project.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.Pipeline;
import io.tapline.project.meltano.Conventions;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The pipelines an import of every environment made from one schedule or job, one per environment
 * ({@link Conventions#ENVIRONMENT_PIPELINES} of the kept document), written back as that one
 * schedule or job, which Meltano runs in whichever environment it is asked for. They are written so
 * while every one of them still exists in its environment and they differ only in what their
 * environment gives (its {@code env}, its {@code state_id_suffix}); else each is written as its own
 * pipeline, pinned to its environment with {@code MELTANO_ENVIRONMENT}.
 */
final class EnvironmentPipelines {

    /** Pipelines written as another one's schedule or job (the other environments' members). */
    private final Set<String> folded = new HashSet<>();
    /** Members of groups that cannot be folded: each is pinned to its environment. */
    private final Set<String> pinned = new HashSet<>();

    /**
     * @param document the last import's kept document
     * @param pipelines every exported pipeline
     * @param environments the exported environment entries by name
     */
    EnvironmentPipelines(ObjectNode document, List<Pipeline> pipelines, Map<String, ObjectNode> environments) {
        Map<String, Pipeline> byName = new HashMap<>();
        pipelines.forEach(p -> byName.put(p.name, p));
        document.path(Conventions.ENVIRONMENT_PIPELINES).fields().forEachRemaining(group -> {
            Map<String, String> members = new LinkedHashMap<>();
            group.getValue().fields().forEachRemaining(m -> members.put(m.getKey(), m.getValue().asText()));
            if (members.isEmpty()) {
                return;
            }
            Pipeline first = byName.get(members.values().iterator().next());
            boolean whole = first != null && members.entrySet().stream().allMatch(m -> {
                Pipeline p = byName.get(m.getValue());
                return p != null && p.environment.equals(m.getKey()) && alike(first, p, environments);
            });
            List<String> rest = members.values().stream().skip(1).toList();
            if (whole) {
                folded.addAll(rest);
            } else {
                members.values().stream().filter(byName::containsKey).forEach(pinned::add);
            }
        });
    }

    /** True when the pipeline is written by its group's first member's schedule or job. */
    boolean folded(Pipeline p) {
        return folded.contains(p.name);
    }

    /** True when the pipeline's schedule names its environment even in the default environment. */
    boolean pinned(Pipeline p) {
        return pinned.contains(p.name);
    }

    /** The same pipeline but for what each one's environment gives. */
    private static boolean alike(Pipeline a, Pipeline b, Map<String, ObjectNode> environments) {
        return Objects.equals(a.extractor.id, b.extractor.id) && Objects.equals(a.loader.id, b.loader.id)
                && a.mappers.stream().map(m -> m.id).toList().equals(b.mappers.stream().map(m -> m.id).toList())
                && Objects.equals(a.transform == null ? null : a.transform.id, b.transform == null ? null : b.transform.id)
                && Objects.equals(a.transformArgs, b.transformArgs) && Objects.equals(a.scheduleInterval, b.scheduleInterval)
                && Objects.equals(a.scheduleTimezone, b.scheduleTimezone) && a.scheduleEnabled == b.scheduleEnabled
                && Objects.equals(a.meltanoJob, b.meltanoJob) && a.stateIdOverridden == b.stateIdOverridden
                && (!a.stateIdOverridden || a.stateId.equals(b.stateId))
                && Objects.equals(suffixOwn(a, environments), suffixOwn(b, environments))
                && own(a, environments).equals(own(b, environments));
    }

    /** The pipeline's env less what its environment gives. */
    private static Map<String, String> own(Pipeline p, Map<String, ObjectNode> environments) {
        Map<String, String> env = new LinkedHashMap<>(Jsons.readStringMap(p.env));
        JsonNode given = environments.containsKey(p.environment) ? environments.get(p.environment).path("env") : null;
        if (given != null) {
            given.fields().forEachRemaining(e -> env.remove(e.getKey(), e.getValue().asText()));
        }
        return env;
    }

    /** The pipeline's suffix when its environment does not give it, else null. */
    private static String suffixOwn(Pipeline p, Map<String, ObjectNode> environments) {
        String suffix = p.stateIdSuffix == null || p.stateIdSuffix.isEmpty() ? null : p.stateIdSuffix;
        return suffix == null || suffix.equals(MeltanoShapes.environmentSuffix(environments.get(p.environment)))
                ? null : suffix;
    }
}
