package io.tapline.plugin;

import io.tapline.common.error.NotFoundException;

/**
 * Meltano plugin types, spelled as in {@code meltano.yml} and in the API path
 * {@code /api/v1/plugins/{type}/{name}}.
 */
public enum PluginType {
    EXTRACTORS("extractors"),
    LOADERS("loaders"),
    MAPPERS("mappers"),
    TRANSFORMERS("transformers"),
    UTILITIES("utilities");

    private final String id;

    PluginType(String id) {
        this.id = id;
    }

    /** The plural lowercase name used in paths and in the database. */
    public String id() {
        return id;
    }

    /**
     * Parses a path segment.
     *
     * @throws NotFoundException 404 for an unknown type (the path names no collection)
     */
    public static PluginType fromPath(String value) {
        for (PluginType t : values()) {
            if (t.id.equals(value)) {
                return t;
            }
        }
        throw new NotFoundException("Unknown plugin type "
                + io.tapline.common.api.Names.quote(value)
                + "; use one of extractors, loaders, mappers, transformers, utilities.");
    }

    @Override
    public String toString() {
        return id;
    }
}
