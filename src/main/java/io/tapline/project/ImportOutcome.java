package io.tapline.project;

import io.tapline.project.model.ProjectModel;

import java.util.List;

/**
 * What an import did, or with a dry run would do ({@link ProjectService#importProject}); its API
 * form is {@link io.tapline.project.api.ImportPlan} ({@link ProjectMapper}).
 *
 * @param environment the environment the project was read for
 * @param dryRun true when nothing was written
 * @param onConflict what was done with existing plugins
 * @param plugins one item per plugin of the document
 * @param pipelines one item per pipeline made from {@code schedules:} and {@code jobs:}
 * @param unsupported keys Tapline does not act on, with the reason
 */
public record ImportOutcome(String environment, boolean dryRun, OnConflict onConflict, List<Item> plugins,
                            List<Item> pipelines, List<ProjectModel.Unsupported> unsupported) {

    /** What the import does with an item. */
    public enum Action {
        CREATE, UPDATE, UNCHANGED;

        /** The name as the API spells it: {@code create}, {@code update}, {@code unchanged}. */
        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One plugin or pipeline.
     *
     * @param type plugin type id ({@code extractors}, ...), or {@code pipeline}
     * @param name its name
     * @param path YAML path it comes from
     * @param action what is done
     * @param changes the fields an update changes (API field names)
     * @param dropped what replacing an existing plugin drops ({@code secret NAME}, ...)
     * @param usedBy the pipelines that use an updated plugin
     */
    public record Item(String type, String name, String path, Action action, List<String> changes,
                       List<String> dropped, List<String> usedBy) {
    }

    /**
     * Counts over plugins and pipelines, and the unsupported keys (stored with the import as JSON
     * {@code {create, update, unchanged, unsupported}}).
     */
    public record Summary(int create, int update, int unchanged, int unsupported) {
    }

    /** The counts. */
    public Summary summary() {
        int create = 0;
        int update = 0;
        int unchanged = 0;
        for (List<Item> items : List.of(plugins, pipelines)) {
            for (Item i : items) {
                switch (i.action()) {
                    case CREATE -> create++;
                    case UPDATE -> update++;
                    case UNCHANGED -> unchanged++;
                }
            }
        }
        return new Summary(create, update, unchanged, unsupported.size());
    }
}
