package io.tapline.run.exec;

import io.tapline.common.json.Jsons;
import io.tapline.invocation.RunPlan;
import io.tapline.invocation.RunPlan.Component;
import io.tapline.invocation.RunPlan.MeltanoCli;
import io.tapline.pipeline.Pipeline;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginEnvironment;
import io.tapline.plugin.PluginOverlays;
import io.tapline.run.Run;

import java.util.function.Function;

/**
 * The run engine's side of {@link RunPlan}: building a plan from a run and its pipeline, and
 * choosing the executor of a plan. Kept here, above the plan, because both read what only the run
 * feature knows (the {@link Run} row, the {@link Pipeline} entity, the executors).
 */
final class RunPlans {

    private RunPlans() {
    }

    /**
     * Builds the plan of a run from its pipeline (both loaded in the caller's transaction): each plugin
     * with the overlay of the pipeline's environment applied ({@link PluginOverlays#overlaid}).
     *
     * @param overlay the overlay of a plugin in the pipeline's environment, or null
     */
    static RunPlan of(Run run, Pipeline p, Function<Plugin, PluginEnvironment> overlay) {
        Function<Plugin, Component> component = plugin -> Component.of(PluginOverlays.overlaid(plugin,
                overlay.apply(plugin)));
        return new RunPlan(run.id, p.name, run.stateId, component.apply(p.extractor),
                p.mappers.stream().map(component).toList(), component.apply(p.loader),
                p.transform == null ? null : component.apply(p.transform), Jsons.readStrings(p.transformArgs),
                run.fullRefresh, Jsons.readStrings(run.fullRefreshStreams), run.stateStrategy,
                "ON_SUCCESS".equals(run.stateCommitPolicy), p.timeoutSeconds, Jsons.readStringMap(p.env),
                p.environment, "meltano".equals(p.executor) ? new MeltanoCli(p.meltanoProjectDir, p.meltanoJob,
                        p.meltanoStateBackendDir, p.stateIdSuffix) : null, p.extractor.id, run.refreshCatalog);
    }

    /** The executor that runs a plan: {@code meltano} (it has a Meltano part) or {@code singer}. */
    static String executor(RunPlan plan) {
        return plan.meltano() != null ? MeltanoExecutor.ID : SingerExecutor.ID;
    }
}
