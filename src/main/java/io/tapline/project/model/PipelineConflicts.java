package io.tapline.project.model;

import io.tapline.pipeline.StateIds;
import io.tapline.project.meltano.Issues;
import io.tapline.project.model.ProjectModel.PipelineDef;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The pipelines of one import, kept apart by name and by state ID: a second pipeline of a name is
 * an error; a second pipeline of a state ID is reported and not made (Tapline keeps one pipeline
 * per state ID; Meltano would let them share bookmarks).
 */
final class PipelineConflicts {

    private final Issues issues;
    private final List<PipelineDef> pipelines = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private final Set<String> stateIds = new HashSet<>();

    PipelineConflicts(Issues issues) {
        this.issues = issues;
    }

    /** Adds a pipeline unless its name or state ID is taken; null (no pipeline) is ignored. */
    void add(PipelineDef def) {
        if (def == null) {
            return;
        }
        if (!names.add(def.name())) {
            issues.error(def.path() + ".name", "a pipeline named '" + def.name() + "' is already made from another"
                    + " schedule or job");
            return;
        }
        String stateId = def.stateId() != null ? def.stateId()
                : StateIds.derive(def.environment(), def.extractor(), def.loader(), def.stateIdSuffix());
        if (!stateIds.add(stateId)) {
            issues.unsupported(def.path(), "its state ID '" + stateId + "' is already used by another pipeline of"
                    + " this project; Tapline keeps one pipeline per state ID, so no pipeline was made for it");
            return;
        }
        pipelines.add(def);
    }

    /** The pipelines added, in order. */
    List<PipelineDef> pipelines() {
        return List.copyOf(pipelines);
    }
}
