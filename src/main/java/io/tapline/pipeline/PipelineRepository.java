package io.tapline.pipeline;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.quarkus.panache.common.Parameters;
import io.tapline.plugin.PluginUsers;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;

/** Queries on {@link Pipeline}. */
@ApplicationScoped
public class PipelineRepository implements PanacheRepository<Pipeline>, PluginUsers {

    /** The pipeline with this name, if any. */
    public Optional<Pipeline> findByName(String name) {
        return find("name", name).firstResultOptional();
    }

    /**
     * The pipelines of this state ID, by id. Several may share one (as Meltano jobs do); the run
     * table's one active run per state ID keeps them from running together.
     */
    public List<Pipeline> findByStateId(String stateId) {
        return find("stateId", io.quarkus.panache.common.Sort.by("id"), stateId).list();
    }

    /** Names of the pipelines that use the plugin in any role, sorted (the {@link PluginUsers} port). */
    @Override
    @SuppressWarnings("unchecked")
    public List<String> namesUsingPlugin(long pluginId) {
        return getEntityManager().createQuery("select distinct p.name from Pipeline p left join p.mappers m"
                        + " where p.extractor.id = :id or p.loader.id = :id or p.transform.id = :id or m.id = :id"
                        + " order by p.name", String.class)
                .setParameter("id", pluginId).getResultList();
    }

    /** One page of pipelines, newest first (keyset on id). */
    public List<Pipeline> page(Long beforeId, int limit) {
        if (beforeId == null) {
            return find("order by id desc").page(0, limit).list();
        }
        return find("id < :before order by id desc", Parameters.with("before", beforeId)).page(0, limit).list();
    }
}
