package io.tapline.run;

import io.tapline.common.api.UuidV7;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.TypedQuery;

import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The run list of {@code GET /api/v1/runs} and {@code GET /api/v1/pipelines/{name}/runs}: pages of
 * runs, newest first, keyset on the UUIDv7 id (reads only; writes are {@link RunRepository}'s).
 */
@ApplicationScoped
public class RunListQuery {

    private final EntityManager em;

    public RunListQuery(EntityManager em) {
        this.em = em;
    }

    /**
     * Filters of the run list.
     *
     * @param pipeline pipeline name
     * @param status run status
     * @param trigger run trigger
     * @param from runs created at or after (UTC)
     * @param to runs created before (UTC)
     */
    public record RunFilter(String pipeline, RunStatus status, RunTrigger trigger, OffsetDateTime from,
                            OffsetDateTime to) {
    }

    /**
     * One page of runs, newest first, keyset on the UUIDv7 id.
     *
     * @param filter optional filters; null fields are ignored
     * @param beforeId only runs with a smaller id (the cursor), or null for the first page
     * @param limit at most this many runs
     */
    public List<Run> page(RunFilter filter, UUID beforeId, int limit) {
        StringBuilder q = new StringBuilder("from Run where 1 = 1");
        Map<String, Object> p = new LinkedHashMap<>();
        if (filter.pipeline() != null) {
            q.append(" and pipelineName = :pipeline");
            p.put("pipeline", filter.pipeline());
        }
        if (filter.status() != null) {
            q.append(" and status = :status");
            p.put("status", filter.status());
        }
        if (filter.trigger() != null) {
            q.append(" and trigger = :trigger");
            p.put("trigger", filter.trigger());
        }
        if (filter.from() != null) {
            q.append(" and id >= :fromId");
            p.put("fromId", UuidV7.lowerBound(filter.from().toInstant().toEpochMilli()));
        }
        if (filter.to() != null) {
            q.append(" and id < :toId");
            p.put("toId", UuidV7.lowerBound(filter.to().toInstant().toEpochMilli()));
        }
        if (beforeId != null) {
            q.append(" and id < :before");
            p.put("before", beforeId);
        }
        q.append(" order by id desc");
        TypedQuery<Run> query = em.createQuery(q.toString(), Run.class).setMaxResults(limit);
        p.forEach(query::setParameter);
        return query.getResultList();
    }
}
