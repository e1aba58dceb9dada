package io.tapline.project;

import io.tapline.project.api.Assessment;
import io.tapline.project.api.ImportPlan;
import io.tapline.project.assess.ProjectAssessment;

import java.util.List;

/** Domain records of projects → their API records. */
final class ProjectMapper {

    private ProjectMapper() {
    }

    /** The plan of an import. */
    static ImportPlan toPlan(ImportOutcome o) {
        ImportOutcome.Summary s = o.summary();
        return new ImportPlan(o.environment(), o.dryRun(), o.onConflict().id(), items(o.plugins()), items(o.pipelines()),
                o.unsupported().stream().map(u -> new ImportPlan.Unsupported(u.path(), u.reason())).toList(),
                new ImportPlan.Summary(s.create(), s.update(), s.unchanged(), s.unsupported()));
    }

    /** The assessment. */
    static Assessment toAssessment(ProjectAssessment a) {
        return new Assessment(a.level(), a.environments(), a.environment(), a.importedAt(), a.findings().stream()
                .map(f -> new Assessment.Finding(f.code(), f.severity(), f.subject(), f.message())).toList(), a.nextStep());
    }

    private static List<ImportPlan.Item> items(List<ImportOutcome.Item> items) {
        return items.stream().map(i -> new ImportPlan.Item(i.type(), i.name(), i.path(), i.action().id(), i.changes(),
                i.dropped(), i.usedBy())).toList();
    }
}
