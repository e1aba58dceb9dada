package io.tapline.catalog;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.Optional;

/** Queries of the catalog cache ({@code extractor_catalog}). */
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
}
