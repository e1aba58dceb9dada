package io.tapline.events.openlineage;

import io.openlineage.client.OpenLineage;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Registers the OpenLineage model classes {@link LineageEvents} serialises for reflection, so
 * Jackson can read their getters in the native executable too.
 */
@RegisterForReflection(targets = {
        OpenLineage.RunEvent.class, OpenLineage.RunEvent.EventType.class, OpenLineage.Run.class,
        OpenLineage.Job.class, OpenLineage.InputDataset.class, OpenLineage.OutputDataset.class,
        OpenLineage.RunFacets.class, OpenLineage.JobFacets.class, OpenLineage.ErrorMessageRunFacet.class,
        OpenLineage.JobTypeJobFacet.class, OpenLineage.DatasetFacets.class, OpenLineage.InputDatasetInputFacets.class,
        OpenLineage.OutputDatasetOutputFacets.class})
final class LineageReflection {

    private LineageReflection() {
    }
}
