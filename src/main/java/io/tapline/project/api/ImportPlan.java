package io.tapline.project.api;

import java.util.List;

/**
 * What an import did, or with {@code dryRun} would do.
 *
 * @param environment the environment the project was read for
 * @param dryRun true when nothing was written
 * @param onConflict what was done with existing plugins: {@code replace}, {@code merge} or {@code fail}
 * @param plugins one item per plugin of the document
 * @param pipelines one item per pipeline made from {@code schedules:} and {@code jobs:}
 * @param unsupported keys Tapline does not act on, with the reason; never dropped silently
 * @param summary counts: {@code create}, {@code update}, {@code unchanged}, {@code unsupported}
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record ImportPlan(String environment, boolean dryRun, String onConflict, List<Item> plugins, List<Item> pipelines,
                         List<Unsupported> unsupported, Summary summary) {

    /**
     * One plugin or pipeline.
     *
     * @param type plugin type ({@code extractors}, ...), or {@code pipeline}
     * @param name its name
     * @param path YAML path it comes from, e.g. {@code plugins.extractors[1]} or {@code schedules[0]}
     * @param action {@code create}, {@code update} or {@code unchanged}
     * @param changes the fields an update changes (API field names), empty otherwise
     * @param dropped what replacing an existing plugin drops: {@code secret NAME}, {@code setting NAME},
     *     {@code env NAME}, {@code capability NAME}; empty for merges, creations and pipelines
     * @param usedBy the pipelines that use an updated plugin; empty otherwise
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Item(String type, String name, String path, String action, List<String> changes,
                       List<String> dropped, List<String> usedBy) {
    }

    /**
     * A key Tapline does not act on.
     *
     * @param path YAML path
     * @param reason why, and whether it is kept for the export
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Unsupported(String path, String reason) {
    }

    /**
     * Counts over plugins and pipelines.
     *
     * @param create items created
     * @param update items updated
     * @param unchanged items left as they were
     * @param unsupported unsupported keys
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Summary(int create, int update, int unchanged, int unsupported) {
    }
}
