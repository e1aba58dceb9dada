package io.tapline.project.model;

import io.tapline.common.error.InvalidInputException;
import io.tapline.project.meltano.DocumentBinder;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument;
import io.tapline.project.meltano.MeltanoYaml;
import io.tapline.project.model.ProjectModel.PipelineDef;
import io.tapline.project.model.ProjectModel.PluginDef;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Interprets a parsed meltano.yml (meltano-state.md §5) for one environment or all of them, in steps of one job
 * each: the document is bound to typed records with its shapes checked ({@link DocumentBinder}),
 * the environment is chosen ({@link EnvironmentChoice}), the plugins are planned with inheritance
 * and the environment's overlays ({@link PluginPlanner}, {@link MapperMappings}), the pipelines
 * from schedules and jobs ({@link PipelinePlanner}, {@link TaskBlocks}, {@link PipelineConflicts}),
 * and the rest of the document is kept for the export ({@link KeptDocument}). {@code ${VAR}}
 * references are kept as written (the run engine expands them).
 *
 * <p>Every key Tapline does not act on is listed as unsupported, never dropped silently. Problems
 * are collected and thrown together as one {@link InvalidInputException} (400 {@code validation})
 * whose {@code errors[].field} are YAML paths, in document order.
 */
public final class ProjectReader {

    private ProjectReader() {
    }

    /**
     * Interprets a document.
     *
     * @param requestedEnvironment the environment to make pipelines for, {@code *} for every one, or
     *     null for {@code default_environment}
     * @param baseDir directory relative executables are resolved against, or null to refuse them
     * @throws InvalidInputException listing every problem by YAML path
     */
    public static ProjectModel read(MeltanoYaml.Parsed parsed, String requestedEnvironment, Path baseDir) {
        Issues issues = new Issues(parsed);
        MeltanoDocument doc = DocumentBinder.bind(parsed, issues);
        EnvironmentChoice environments = EnvironmentChoice.choose(doc, requestedEnvironment, issues);
        PluginPlanner pluginPlanner = new PluginPlanner(doc, environments.overlays(), baseDir, issues);
        List<PluginDef> plugins = new ArrayList<>(pluginPlanner.plan());
        MapperMappings mappings = new MapperMappings(issues);
        plugins.addAll(mappings.expand(plugins));
        PipelinePlanner pipelinePlanner = new PipelinePlanner(doc, environments, plugins,
                mappings.mapperOfMapping(), issues);
        List<PipelineDef> pipelines = pipelinePlanner.plan();
        var document = KeptDocument.of(parsed.root(), doc, environments, pluginPlanner.entries(),
                pipelinePlanner.schedulesWithoutTimezone(), pipelinePlanner.perEnvironment(), issues);
        issues.throwIfErrors();
        List<ProjectModel.Unsupported> unsupported = issues.unsupported().stream()
                .map(u -> new ProjectModel.Unsupported(u.path(), u.reason())).toList();
        return new ProjectModel(environments.chosen(), environments.defaultEnvironment(), environments.names(),
                List.copyOf(plugins), pipelines, unsupported, document, doc,
                EnvironmentChoice.ALL.equals(environments.requested()));
    }
}
