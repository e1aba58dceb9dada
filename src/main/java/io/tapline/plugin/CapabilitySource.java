package io.tapline.plugin;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where a plugin's capabilities came from ({@code plugin.capabilities_source},
 * {@code capabilitiesSource} in the plugin API). A meltano.yml lists no capabilities for Hub
 * plugins (Meltano takes them from the Hub and its lock files), so a plugin may arrive without
 * any: then it is asked ({@code --about --format=json}) before its first use, and
 * {@link #conventional} applies when it cannot answer.
 */
public enum CapabilitySource {
    /** Listed in an imported meltano.yml (or inherited there from the parent plugin). */
    PROJECT("project"),
    /** Sent in a plugin request ({@code capabilities} in POST, PUT or PATCH). */
    API("api"),
    /** The plugin's own answer to {@code --about --format=json}. */
    ABOUT("about"),
    /** The plugin could not answer: Meltano's conventional set for its type ({@link #conventional}). */
    DEFAULT("default");

    private final String id;

    CapabilitySource(String id) {
        this.id = id;
    }

    /** The stored and wire name: project, api, about or default. */
    public String id() {
        return id;
    }

    /** True when a person listed the capabilities (project or api), false when Tapline found them. */
    public boolean given() {
        return this == PROJECT || this == API;
    }

    /** The source of a stored name; empty for null (not given and not asked yet) or an unknown name. */
    public static Optional<CapabilitySource> of(String id) {
        return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst();
    }

    /** Whether plugins of this type are asked for their capabilities: the Singer types (extractors, loaders, mappers). */
    public static boolean asked(PluginType type) {
        return type == PluginType.EXTRACTORS || type == PluginType.LOADERS || type == PluginType.MAPPERS;
    }

    /**
     * The capabilities assumed for a plugin of this type that cannot say: for extractors
     * {@code catalog, discover, state}, the set the Meltano Hub lists for the Singer taps it knows
     * (a Singer tap takes a catalog, discovers one and resumes from a state); for the other types
     * none, since no capability of a loader or mapper changes how Tapline or Meltano starts it.
     */
    public static List<String> conventional(PluginType type) {
        return type == PluginType.EXTRACTORS ? List.of("catalog", "discover", "state") : List.of();
    }
}
