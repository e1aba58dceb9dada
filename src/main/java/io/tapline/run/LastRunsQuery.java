package io.tapline.run;

import io.tapline.pipeline.LastRuns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The {@link LastRuns} port of the pipeline feature: the newest run of each pipeline that was not
 * a skipped tick, read from {@code pipeline_run} in one query (on {@code ix_run_pipeline_id}).
 */
@ApplicationScoped
public class LastRunsQuery implements LastRuns {

    private final EntityManager em;

    public LastRunsQuery(EntityManager em) {
        this.em = em;
    }

    @Override
    @Transactional(Transactional.TxType.SUPPORTS)
    public Map<Long, LastRun> of(Collection<Long> pipelineIds) {
        Map<Long, LastRun> out = new HashMap<>();
        if (pipelineIds.isEmpty()) {
            return out;
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                select distinct on (pipeline_id) pipeline_id, id, status, ended_at from pipeline_run
                where pipeline_id in (:ids) and status <> 'SKIPPED'
                order by pipeline_id, id desc
                """).setParameter("ids", pipelineIds).getResultList();
        for (Object[] r : rows) {
            out.put(((Number) r[0]).longValue(), new LastRun((UUID) r[1], (String) r[2], offsetDateTime(r[3])));
        }
        return out;
    }

    /** A timestamp column as the driver returns it (OffsetDateTime, Instant or Timestamp), in UTC; null stays null. */
    static OffsetDateTime offsetDateTime(Object o) {
        if (o == null || o instanceof OffsetDateTime) {
            return (OffsetDateTime) o;
        }
        if (o instanceof Instant i) {
            return i.atOffset(ZoneOffset.UTC);
        }
        if (o instanceof Timestamp t) {
            return t.toInstant().atOffset(ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("not a timestamp: " + o.getClass().getSimpleName());
    }
}
