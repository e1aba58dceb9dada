package io.tapline.run;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The newest runs of many pipelines in one query: for each pipeline a lateral scan of
 * {@code ix_run_pipeline_id (pipeline_id, id desc)} that stops after {@code n} rows, skipped
 * ticks left out (run ids are UUIDv7, so {@code id desc} is newest first).
 */
@ApplicationScoped
public class RecentRunsQuery {

    /** Most runs per pipeline one call returns. */
    public static final int MAX_PER_PIPELINE = 50;

    private final EntityManager em;

    public RecentRunsQuery(EntityManager em) {
        this.em = em;
    }

    /**
     * The newest {@code n} runs (not skipped ticks) of each pipeline.
     *
     * @param names pipeline names; may be empty
     * @param n runs per pipeline, 0 to {@link #MAX_PER_PIPELINE}
     * @return pipeline name → its runs, newest first; pipelines without runs are absent
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Map<String, List<RecentRun>> of(Collection<String> names, int n) {
        Map<String, List<RecentRun>> out = new HashMap<>();
        if (names.isEmpty() || n <= 0) {
            return out;
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                select p.name, r.id, r.status, r.trigger, r.started_at, r.ended_at, r.records_total
                from pipeline p cross join lateral (
                    select id, status, trigger, started_at, ended_at, records_total from pipeline_run
                    where pipeline_id = p.id and status <> 'SKIPPED'
                    order by id desc limit :n) r
                where p.name in (:names)
                order by p.id, r.id desc
                """).setParameter("names", names).setParameter("n", Math.min(n, MAX_PER_PIPELINE)).getResultList();
        for (Object[] r : rows) {
            OffsetDateTime started = LastRunsQuery.offsetDateTime(r[4]);
            OffsetDateTime ended = LastRunsQuery.offsetDateTime(r[5]);
            Long duration = started != null && ended != null ? Duration.between(started, ended).toMillis() : null;
            out.computeIfAbsent((String) r[0], k -> new ArrayList<>()).add(new RecentRun((UUID) r[1],
                    (String) r[2], (String) r[3], started, ended, duration, ((Number) r[6]).longValue()));
        }
        return out;
    }
}
