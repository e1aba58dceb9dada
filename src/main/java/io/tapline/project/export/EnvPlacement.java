package io.tapline.project.export;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.Pipeline;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a pipeline's env goes so that Meltano sees it. In Meltano 4.2.2 a job carries no env and a
 * schedule's {@code env} reaches only the {@code meltano run} that {@code meltano schedule run}
 * starts; {@code meltano --environment E run <job>} and {@code meltano invoke} see the project's,
 * the environment's and the plugins' {@code env}. A Tapline pipeline's env reaches every process
 * of the pipeline, which in Meltano terms is the environment's {@code env} when all pipelines of
 * that environment agree. So a variable that every pipeline of an environment has, with one value,
 * is written into that environment's {@code env} (unless the environment already gives it another
 * value); the import reads it back into every pipeline of the environment. Every other variable
 * stays in the schedule's {@code env} and the export's comment names the pipeline.
 */
final class EnvPlacement {

    private EnvPlacement() {
    }

    /**
     * Adds to each environment's {@code env} the variables all its pipelines share.
     *
     * @param pipelines every exported pipeline
     * @param environments the exported environment entries by name (changed in place)
     */
    static void shareByEnvironment(List<Pipeline> pipelines, Map<String, ObjectNode> environments) {
        Map<String, Map<String, String>> common = new LinkedHashMap<>();
        for (Pipeline p : pipelines) {
            Map<String, String> env = Jsons.readStringMap(p.env);
            Map<String, String> shared = common.get(p.environment);
            if (shared == null) {
                common.put(p.environment, new LinkedHashMap<>(env));
            } else {
                shared.entrySet().removeIf(e -> !e.getValue().equals(env.get(e.getKey())));
            }
        }
        common.forEach((name, shared) -> {
            ObjectNode environment = environments.get(name);
            if (environment == null || shared.isEmpty()) {
                return;
            }
            ObjectNode written = environment.get("env") instanceof ObjectNode e ? e : null;
            shared.forEach((k, v) -> {
                if (!k.startsWith("MELTANO_") && (written == null || !written.has(k))) {
                    ObjectNode env = environment.get("env") instanceof ObjectNode e ? e : environment.putObject("env");
                    env.put(k, v);
                }
            });
        });
    }
}
