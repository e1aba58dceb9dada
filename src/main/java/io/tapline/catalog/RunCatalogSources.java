package io.tapline.catalog;

import java.util.UUID;

/**
 * Port: records on a run's row which catalog the run used ({@code pipeline_run.catalog_source}).
 * Declared here so that the catalog cache can record it in the transaction of its own look-up or
 * store; implemented by {@code run} ({@code RunRepository}), which owns every write of run rows
 * (catalog is below run and never imports it, docs/architecture.md).
 */
public interface RunCatalogSources {

    /**
     * Records the catalog source of a run, in the caller's transaction.
     *
     * @param runId the run
     * @param source {@link CatalogCache.Source#id()}: {@code user}, {@code cache} or {@code discovered}
     */
    void recordCatalogSource(UUID runId, String source);
}
