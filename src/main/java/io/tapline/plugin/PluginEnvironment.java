package io.tapline.plugin;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import java.time.OffsetDateTime;

/**
 * A plugin's overlay in one Meltano environment ({@code environments[].config.plugins.<type>[]} of a
 * meltano.yml): what a run of a pipeline of that environment uses over the plugin's base
 * ({@link PluginOverlays#overlaid}). JSON-valued columns hold text as {@link Plugin} does; sensitive
 * values (the plugin's {@code sensitive} names) are sealed as the plugin's are ({@link PluginSecrets}).
 */
@Entity
@Table(name = "plugin_environment")
public class PluginEnvironment {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    /** The plugin this overlays ({@code plugin.id}); the row goes when the plugin does. */
    @Column(name = "plugin_id", nullable = false)
    public Long pluginId;

    /** Environment name ({@code pipeline.environment} of the pipelines that use it). */
    @Column(nullable = false, length = 100)
    public String environment;

    /** JSON object deep-merged over the plugin's config. */
    @Column(nullable = false)
    public String config = "{}";

    /** JSON object of variables put over the plugin's env. */
    @Column(nullable = false)
    public String env = "{}";

    /** JSON object deep-merged over the plugin's metadata. */
    @Column(nullable = false)
    public String metadata = "{}";

    /** JSON array replacing the plugin's select patterns, or null when the overlay gives none. */
    @Column(name = "select_patterns")
    public String selectPatterns;

    /** JSON object of the overlay entry's other keys, kept for the meltano.yml export. */
    @Column(nullable = false)
    public String extras = "{}";

    @Version
    @Column(nullable = false)
    public long version;

    @Column(name = "created_at", nullable = false)
    public OffsetDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    public OffsetDateTime updatedAt;
}
