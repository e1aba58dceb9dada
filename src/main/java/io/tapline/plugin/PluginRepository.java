package io.tapline.plugin;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.quarkus.panache.common.Parameters;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;

/** Queries on {@link Plugin}. */
@ApplicationScoped
public class PluginRepository implements PanacheRepository<Plugin> {

    /** The plugin of this type and name, if any. */
    public Optional<Plugin> findByTypeAndName(PluginType type, String name) {
        return find("type = :type and name = :name", Parameters.with("type", type).and("name", name))
                .firstResultOptional();
    }

    /**
     * One page of plugins, newest first (keyset on id).
     *
     * @param type only this type, or null for all
     * @param beforeId only ids lower than this, or null for the first page
     * @param limit page size
     */
    public List<Plugin> page(PluginType type, Long beforeId, int limit) {
        StringBuilder q = new StringBuilder("1 = 1");
        Parameters p = new Parameters();
        if (type != null) {
            q.append(" and type = :type");
            p = p.and("type", type);
        }
        if (beforeId != null) {
            q.append(" and id < :before");
            p = p.and("before", beforeId);
        }
        q.append(" order by id desc");
        return find(q.toString(), p).page(0, limit).list();
    }
}
