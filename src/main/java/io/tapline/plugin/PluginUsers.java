package io.tapline.plugin;

import java.util.List;

/**
 * Port: what uses a plugin, asked before a plugin is deleted (409 {@code in-use} when anything
 * does). Declared here and implemented by the feature that holds the references (pipelines:
 * {@code io.tapline.pipeline.PipelineRepository}), so that plugin never imports the features above
 * it (docs/architecture.md).
 */
public interface PluginUsers {

    /**
     * Names of the pipelines that use the plugin in any role (extractor, loader, mapper,
     * transform), sorted.
     *
     * @param pluginId the plugin's id
     * @return the names; empty when nothing uses it
     */
    List<String> namesUsingPlugin(long pluginId);
}
