package io.tapline.plugin;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.quarkus.panache.common.Parameters;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Queries on {@link PluginEnvironment}. */
@ApplicationScoped
public class PluginEnvironmentRepository implements PanacheRepository<PluginEnvironment> {

    /** The overlay of a plugin in an environment, if any. */
    public Optional<PluginEnvironment> find(long pluginId, String environment) {
        return find("pluginId = :p and environment = :e", Parameters.with("p", pluginId).and("e", environment))
                .firstResultOptional();
    }

    /** Every overlay of a plugin, by environment name. */
    public List<PluginEnvironment> ofPlugin(long pluginId) {
        return list("pluginId = ?1 order by environment", pluginId);
    }

    /** Every overlay of these plugins, by plugin id and environment name. */
    public List<PluginEnvironment> ofPlugins(Collection<Long> pluginIds) {
        return pluginIds.isEmpty() ? List.of() : list("pluginId in ?1 order by pluginId, environment", pluginIds);
    }
}
