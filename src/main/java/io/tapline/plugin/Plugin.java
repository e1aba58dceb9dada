package io.tapline.plugin;

import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import java.time.OffsetDateTime;

/**
 * A Meltano plugin: an extractor (tap), loader (target), mapper, transformer or utility that
 * Tapline starts as a process. JSON-valued columns hold the exact text that was sent (key order
 * and number spelling survive); {@link PluginMapper} converts them.
 */
@Entity
@Table(name = "plugin")
public class Plugin {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Convert(converter = PluginTypeConverter.class)
    @Column(nullable = false, length = 16)
    public PluginType type;

    @Column(nullable = false, length = 100)
    public String name;

    /** Command name looked up on PATH, or an absolute path. Never run through a shell. */
    @Column(nullable = false, length = 4096)
    public String executable;

    /** JSON array of extra arguments placed before the Singer arguments. */
    @Column(nullable = false)
    public String args = "[]";

    /** JSON array of capabilities (catalog, discover, state, properties, about, ...). */
    @Column(nullable = false)
    public String capabilities = "[]";

    /**
     * Where {@link #capabilities} came from: a {@link CapabilitySource} id (project, api, about,
     * default), or null while none were given and the plugin was not asked yet.
     */
    @Column(name = "capabilities_source", length = 16)
    public String capabilitiesSource;

    /** The plugin's {@code --about --format=json} answer as it printed it (a JSON object), or null. */
    public String about;

    /** Why the plugin could not answer {@code --about --format=json}, or null. */
    @Column(name = "about_error")
    public String aboutError;

    /** When the plugin was last asked {@code --about --format=json}, or null. */
    @Column(name = "about_at")
    public OffsetDateTime aboutAt;

    /** JSON object: the plugin's config, with {@code ${env:...}} / {@code ${secret:...}} references kept as written. */
    @Column(nullable = false)
    public String config = "{}";

    /** JSON array of setting names whose values are write-only (masked in responses). */
    @Column(nullable = false)
    public String sensitive = "[]";

    /** JSON array of Meltano select patterns ({@code stream.property}). */
    @Column(name = "select_patterns", nullable = false)
    public String selectPatterns = "[]";

    /** JSON object of Meltano metadata rules ({@code stream: {key: value}}). */
    @Column(nullable = false)
    public String metadata = "{}";

    /** Stored Singer catalog (JSON), or null. */
    public String catalog;

    /** JSON object of environment variables for the process. */
    @Column(nullable = false)
    public String env = "{}";

    /** Meltano {@code namespace}, kept for the meltano.yml export; null when not given. */
    @Column(length = 200)
    public String namespace;

    /** Meltano {@code variant}, kept for the meltano.yml export; null when not given. */
    @Column(length = 200)
    public String variant;

    /** Meltano {@code pip_url}: installed into the plugin's virtual environment (io.tapline.plugin.install); also exported. */
    @Column(name = "pip_url")
    public String pipUrl;

    /** Meltano {@code inherit_from}: the plugin this one was derived from, or null. */
    @Column(name = "inherit_from", length = 100)
    public String inheritFrom;

    /**
     * JSON object of the plugin's other Meltano keys that Tapline does not model ({@code settings},
     * {@code commands}, {@code schema}, {@code mappings}, ...), kept as written for the export.
     */
    @Column(nullable = false)
    public String extras = "{}";

    @Version
    @Column(nullable = false)
    public long version;

    @Column(name = "created_at", nullable = false)
    public OffsetDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    public OffsetDateTime updatedAt;

    /**
     * A detached copy of every column (not managed by Hibernate; changing it changes no row): what
     * a change summary compares with and what an export rewrites for one environment. One place, so
     * a new column is never left out of one of them.
     */
    public Plugin detachedCopy() {
        Plugin c = new Plugin();
        c.id = id;
        c.type = type;
        c.name = name;
        c.executable = executable;
        c.args = args;
        c.capabilities = capabilities;
        c.capabilitiesSource = capabilitiesSource;
        c.about = about;
        c.aboutError = aboutError;
        c.aboutAt = aboutAt;
        c.config = config;
        c.sensitive = sensitive;
        c.selectPatterns = selectPatterns;
        c.metadata = metadata;
        c.catalog = catalog;
        c.env = env;
        c.namespace = namespace;
        c.variant = variant;
        c.pipUrl = pipUrl;
        c.inheritFrom = inheritFrom;
        c.extras = extras;
        c.version = version;
        c.createdAt = createdAt;
        c.updatedAt = updatedAt;
        return c;
    }
}
