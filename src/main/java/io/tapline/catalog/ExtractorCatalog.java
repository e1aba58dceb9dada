package io.tapline.catalog;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;

/**
 * The cached discovered catalog of one extractor ({@code extractor_catalog}, V90): the catalog
 * JSON text exactly as the tap printed it, and the {@link CatalogKey} it was discovered under.
 * Written only through {@link CatalogRepository#store}.
 */
@Entity
@Table(name = "extractor_catalog")
public class ExtractorCatalog {

    /** The extractor ({@code plugin.id}); the row goes with the plugin. */
    @Id
    @Column(name = "plugin_id")
    public Long pluginId;

    @Column(name = "plugin_name", nullable = false, length = 100)
    public String pluginName;

    /** {@link CatalogKey}: 64 hex digits. */
    @Column(name = "cache_key", nullable = false, length = 64)
    public String cacheKey;

    /** The catalog as discovered (JSON text, before any select/metadata rule). */
    @Column(nullable = false)
    public String catalog;

    @Column(name = "stream_count", nullable = false)
    public int streamCount;

    @Column(name = "discovered_at", nullable = false)
    public OffsetDateTime discoveredAt;

    /** {@code run:<id>} or {@code api:<actor>}. */
    @Column(name = "discovered_by", nullable = false, length = 200)
    public String discoveredBy;

    /** How long {@code --discover} took, in milliseconds. */
    @Column(name = "discovery_ms", nullable = false)
    public long discoveryMs;
}
