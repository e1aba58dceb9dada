package io.tapline.catalog;

import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginType;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/** The transactions of the catalog cache, each short (never around a discovery). */
@ApplicationScoped
@Transactional
public class CatalogStore {

    private final CatalogRepository catalogs;
    private final PluginRepository plugins;
    private final RunCatalogSources runs;

    public CatalogStore(CatalogRepository catalogs, PluginRepository plugins, RunCatalogSources runs) {
        this.catalogs = catalogs;
        this.plugins = plugins;
        this.runs = runs;
    }

    /** The extractor's cached catalog when it was discovered under {@code key}. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<ExtractorCatalog> lookup(long pluginId, String key) {
        return catalogs.findByPlugin(pluginId).filter(c -> c.cacheKey.equals(key));
    }

    /**
     * As {@link #lookup}, and when found, records {@code cache} as the run's catalog source in the
     * same transaction.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<ExtractorCatalog> lookupForRun(long pluginId, String key, UUID runId) {
        Optional<ExtractorCatalog> found = catalogs.findByPlugin(pluginId).filter(c -> c.cacheKey.equals(key));
        if (found.isPresent()) {
            runs.recordCatalogSource(runId, CatalogCache.Source.CACHE.id());
        }
        return found;
    }

    /**
     * What identifies a version of the extractor's cached catalog, read without the catalog.
     *
     * @param cacheKey the {@link CatalogKey} it was discovered under
     * @param discoveredAt when it was discovered
     */
    public record Header(String cacheKey, OffsetDateTime discoveredAt) {
    }

    /** The key and discovery time of the extractor's cached catalog, whatever its key (the catalog is not read). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<Header> header(long pluginId) {
        return catalogs.findHeader(pluginId).map(r -> new Header((String) r[0], (OffsetDateTime) r[1]));
    }

    /** The extractor's cached catalog, whatever its key. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<ExtractorCatalog> latest(long pluginId) {
        return catalogs.findByPlugin(pluginId);
    }

    /**
     * Stores a discovered catalog (replacing the extractor's previous one); with a run, records
     * {@code discovered} as its catalog source in the same transaction.
     *
     * @param runId the run that discovered it, or null
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void store(long pluginId, String name, String key, String catalog, int streams, OffsetDateTime at,
                      String by, long ms, UUID runId) {
        catalogs.store(pluginId, name, key, catalog, streams, at, by, ms);
        if (runId != null) {
            runs.recordCatalogSource(runId, CatalogCache.Source.DISCOVERED.id());
        }
    }

    /** Records the catalog source of a run. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordSource(UUID runId, String source) {
        runs.recordCatalogSource(runId, source);
    }

    /** A plugin by type and name. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<Plugin> plugin(PluginType type, String name) {
        Optional<Plugin> p = plugins.findByTypeAndName(type, name);
        p.ifPresent(x -> plugins.getEntityManager().detach(x));
        return p;
    }
}
