package io.tapline.catalog;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/** Queries of the catalog cache ({@code extractor_catalog}) and the catalog columns of {@code pipeline_run}. */
@ApplicationScoped
public class CatalogRepository implements PanacheRepositoryBase<ExtractorCatalog, Long> {

    /** The cached catalog of an extractor, whatever its key. */
    public Optional<ExtractorCatalog> findByPlugin(long pluginId) {
        return findByIdOptional(pluginId);
    }

    /**
     * The key and discovery time of the extractor's cached catalog, without the catalog itself.
     *
     * @return {@code [cacheKey (String), discoveredAt (OffsetDateTime)]}, or empty
     */
    public Optional<Object[]> findHeader(long pluginId) {
        return getEntityManager().createQuery("select c.cacheKey, c.discoveredAt from ExtractorCatalog c"
                        + " where c.pluginId = :id", Object[].class)
                .setParameter("id", pluginId).getResultStream().findFirst();
    }

    /** Inserts or replaces the extractor's cached catalog (one row per extractor). */
    public void store(long pluginId, String pluginName, String key, String catalog, int streams,
                      OffsetDateTime at, String by, long ms) {
        getEntityManager().createNativeQuery("""
                insert into extractor_catalog (plugin_id, plugin_name, cache_key, catalog, stream_count, discovered_at,
                    discovered_by, discovery_ms)
                values (:id, :name, :key, :catalog, :streams, :at, :by, :ms)
                on conflict (plugin_id) do update set plugin_name = excluded.plugin_name,
                    cache_key = excluded.cache_key, catalog = excluded.catalog, stream_count = excluded.stream_count,
                    discovered_at = excluded.discovered_at, discovered_by = excluded.discovered_by,
                    discovery_ms = excluded.discovery_ms
                """)
                .setParameter("id", pluginId).setParameter("name", pluginName).setParameter("key", key)
                .setParameter("catalog", catalog).setParameter("streams", streams).setParameter("at", at)
                .setParameter("by", by).setParameter("ms", ms)
                .executeUpdate();
        getEntityManager().clear();
    }

    /** Records which catalog a run used ({@code user}, {@code cache} or {@code discovered}). */
    public void recordSource(UUID runId, String source) {
        getEntityManager().createNativeQuery("update pipeline_run set catalog_source = :s where id = :id")
                .setParameter("s", source).setParameter("id", runId).executeUpdate();
    }

    /** Marks a queued run as asking for a fresh discovery ({@code refreshCatalog: true}). */
    public void requestRefresh(UUID runId) {
        getEntityManager().createNativeQuery("update pipeline_run set refresh_catalog = true where id = :id")
                .setParameter("id", runId).executeUpdate();
    }
}
