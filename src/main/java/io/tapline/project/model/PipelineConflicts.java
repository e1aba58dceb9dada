package io.tapline.project.model;

import io.tapline.project.meltano.Issues;
import io.tapline.project.model.ProjectModel.PipelineDef;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The pipelines of one import, kept apart by name: a second pipeline of a name is an error. Several
 * pipelines may share a state ID, as Meltano jobs of one tap and target do ({@code tap map target}
 * and {@code tap target dbt:run} both run under {@code dev:tap-to-target}): they share their
 * bookmarks, and the one active run per state ID keeps them from running together.
 */
final class PipelineConflicts {

    private final Issues issues;
    private final List<PipelineDef> pipelines = new ArrayList<>();
    private final Set<String> names = new HashSet<>();

    PipelineConflicts(Issues issues) {
        this.issues = issues;
    }

    /** Adds a pipeline unless its name is taken; null (no pipeline) is ignored. */
    void add(PipelineDef def) {
        if (def == null) {
            return;
        }
        if (!names.add(def.name())) {
            issues.error(def.path() + ".name", "a pipeline named '" + def.name() + "' is already made from another"
                    + " schedule or job");
            return;
        }
        pipelines.add(def);
    }

    /** The pipelines added, in order. */
    List<PipelineDef> pipelines() {
        return List.copyOf(pipelines);
    }
}
