package io.tapline.events;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Queries of the {@code event} table, and the run facts the events are made from. */
@ApplicationScoped
public class EventRepository implements PanacheRepositoryBase<Event, UUID> {

    /**
     * SQL: the run left a non-empty state exactly as it found it (its last checkpoint, else its
     * starting state, equals the starting state). Evaluated in the database: states stay there.
     */
    private static final String UNCHANGED = """
            (case when coalesce(r.state_after, r.state_before) = r.state_before
                  then regexp_replace(r.state_before, '\\s', '', 'g') not in ('', '{}', '{"singer_state":{}}')
                  else false end)""";

    private static final String RUN_COLUMNS = """
            r.id, r.pipeline_id, r.pipeline_name, r.state_id, r.trigger, r.status, r.attempt, r.queued_at,
            r.started_at, r.ended_at, r.failed_component, r.error_summary, r.records_total, r.stream_counts,
            coalesce(octet_length(r.state_before), 0), coalesce(octet_length(coalesce(r.state_after, r.state_before)), 0),
            """ + UNCHANGED + ", x.name, x.namespace, l.name, l.namespace, p.state_not_advancing_runs,"
            + " r.state_not_passed\n";
    private static final String RUN_JOINS = """
            from pipeline_run r
            left join pipeline p on p.id = r.pipeline_id
            left join plugin x on x.id = p.extractor_id
            left join plugin l on l.id = p.loader_id
            """;

    /** The run as it is now in this transaction (a native query: never a stale loaded entity). */
    public Optional<RunFacts> runFacts(UUID runId) {
        List<?> rows = getEntityManager().createNativeQuery("select " + RUN_COLUMNS + RUN_JOINS + " where r.id = :id")
                .setParameter("id", runId).getResultList();
        return rows.stream().map(r -> facts((Object[]) r)).findFirst();
    }

    /**
     * Whether each of the newest SUCCEEDED runs of a pipeline that relayed records, up to and
     * including {@code upTo}, left a non-empty state unchanged; newest first. Compared in the
     * database, so large states are never loaded.
     *
     * @param limit how many runs at most
     */
    public List<Boolean> recentProductiveUnchanged(long pipelineId, UUID upTo, int limit) {
        List<?> rows = getEntityManager().createNativeQuery("select r.id = :upTo, " + UNCHANGED + """
                        from pipeline_run r
                        where r.pipeline_id = :pid and r.status = 'SUCCEEDED' and r.records_total > 0 and r.id <= :upTo
                        order by r.id desc limit :n
                        """)
                .setParameter("pid", pipelineId).setParameter("upTo", upTo).setParameter("n", limit).getResultList();
        List<Boolean> out = new java.util.ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Object[] r = (Object[]) rows.get(i);
            if (i == 0 && !Boolean.TRUE.equals(r[0])) {
                return List.of();
            }
            out.add(Boolean.TRUE.equals(r[1]));
        }
        return out;
    }

    /**
     * The pipeline's own not-advancing threshold: empty when no such pipeline, an empty inner
     * optional when it uses the setting.
     */
    public Optional<Optional<Integer>> notAdvancingRuns(String pipelineName) {
        List<?> rows = getEntityManager().createNativeQuery(
                        "select state_not_advancing_runs from pipeline where name = :n")
                .setParameter("n", pipelineName).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Object v = rows.get(0);
        return Optional.of(v == null ? Optional.empty() : Optional.of(((Number) v).intValue()));
    }

    /** Sets (or clears with null) the pipeline's not-advancing threshold; false when no such pipeline. */
    public boolean setNotAdvancingRuns(String pipelineName, Integer runs) {
        return getEntityManager().createNativeQuery(
                        "update pipeline set state_not_advancing_runs = :v where name = :n")
                .setParameter("v", runs).setParameter("n", pipelineName).executeUpdate() == 1;
    }

    /**
     * Events newest first, optionally of one pipeline and one type, older than the cursor id.
     *
     * @param limit rows to return (callers ask one more to know whether a next page exists)
     */
    public List<Event> list(String pipeline, String type, UUID before, int limit) {
        StringBuilder q = new StringBuilder("1 = 1");
        io.quarkus.panache.common.Parameters params = new io.quarkus.panache.common.Parameters();
        if (pipeline != null) {
            q.append(" and pipelineName = :pipeline");
            params.and("pipeline", pipeline);
        }
        if (type != null) {
            q.append(" and type = :type");
            params.and("type", type);
        }
        if (before != null) {
            q.append(" and id < :before");
            params.and("before", before);
        }
        return find(q + " order by id desc", params).page(0, limit).list();
    }

    /** Deletes events (with their deliveries) that occurred before {@code cutoff}; returns how many. */
    public int deleteOlderThan(OffsetDateTime cutoff, int batch) {
        return getEntityManager().createNativeQuery("""
                        delete from event where id in (
                            select id from event where occurred_at < :cutoff limit :n for update skip locked)
                        """)
                .setParameter("cutoff", cutoff).setParameter("n", batch).executeUpdate();
    }

    private static RunFacts facts(Object[] r) {
        return new RunFacts((UUID) r[0], r[1] == null ? null : ((Number) r[1]).longValue(), (String) r[2],
                (String) r[3], (String) r[4], (String) r[5], ((Number) r[6]).intValue(), SqlTimes.of(r[7]),
                SqlTimes.of(r[8]), SqlTimes.of(r[9]), (String) r[10], (String) r[11], ((Number) r[12]).longValue(),
                (String) r[13], ((Number) r[14]).longValue(), ((Number) r[15]).longValue(), Boolean.TRUE.equals(r[16]),
                (String) r[17], (String) r[18], (String) r[19], (String) r[20],
                r[21] == null ? null : ((Number) r[21]).intValue(), Boolean.TRUE.equals(r[22]));
    }
}
