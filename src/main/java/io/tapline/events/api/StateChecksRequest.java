package io.tapline.events.api;

/**
 * Body and response of {@code /api/v1/pipelines/{name}/state-checks}.
 *
 * @param notAdvancingRuns unchanged successful runs with records after which the pipeline's state
 *                         counts as not advancing, 1 to 100; null: {@code tapline.events.not-advancing-runs}
 * @param effectiveNotAdvancingRuns (response only) the number in force
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record StateChecksRequest(Integer notAdvancingRuns, Integer effectiveNotAdvancingRuns) {
}
