package io.tapline.pipeline;

/**
 * CDI event fired by {@link PipelineService} when a pipeline was created, replaced, paused,
 * resumed or deleted. Observers that act on the stored row use
 * {@code @Observes(during = TransactionPhase.AFTER_SUCCESS)}, so they see the committed change.
 *
 * @param id database id of the pipeline
 * @param name pipeline name
 */
public record PipelineChanged(long id, String name) {
}
