package io.tapline.state;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * SQL of the state store ({@code singer_state}, {@code singer_state_version}). Values are the
 * JSON text written by {@link PythonJson}; nothing here parses them.
 */
@ApplicationScoped
public class StateRepository {

    @Inject
    EntityManager em;

    /**
     * One stored state.
     *
     * @param stateId the state ID
     * @param completed completed side, JSON text
     * @param partial partial side, JSON text
     * @param version version number, 1 for the first write
     * @param updatedAt time of the last change (UTC)
     */
    public record Row(String stateId, String completed, String partial, long version, OffsetDateTime updatedAt) {
    }

    /**
     * One entry of a state list: what {@code GET /api/v1/states} returns, never the bodies.
     *
     * @param stateId the state ID
     * @param status {@code ok}, {@code empty} or {@code invalid}, stored at each write ({@link StateService#listStatus})
     * @param version version number
     * @param updatedAt time of the last change (UTC)
     */
    public record Listed(String stateId, String status, long version, OffsetDateTime updatedAt) {
    }

    /**
     * One history entry.
     *
     * @param version the version this change produced
     * @param source RUN, STATE_EDIT, IMPORT, ROLLBACK or MELTANO
     * @param action what was done: set, merge, copy, move, clear, bookmark, checkpoint, import, rollback
     * @param actor who did it
     * @param runId the run that wrote it, for source RUN
     * @param completedBefore completed side before (null when the state ID did not exist)
     * @param partialBefore partial side before
     * @param completedAfter completed side after (null when cleared)
     * @param partialAfter partial side after
     * @param createdAt when (UTC)
     */
    public record Version(long version, String source, String action, String actor, UUID runId,
                         String completedBefore, String partialBefore, String completedAfter, String partialAfter,
                         OffsetDateTime createdAt) {
    }

    /**
     * Serialises writers of one state ID until the transaction ends, with the same key the Meltano
     * PostgreSQL state backend locks ({@code md5(state_id)} first 8 bytes, big-endian signed;
     * meltano-state.md §6.7), so Meltano and Tapline never interleave a read-modify-write.
     */
    public void lock(String stateId) {
        em.createNativeQuery("select pg_advisory_xact_lock(:key)").setParameter("key", lockKey(stateId)).getSingleResult();
    }

    /** The PostgreSQL advisory-lock key of a state ID, as the Meltano PostgreSQL backend computes it. */
    public static long lockKey(String stateId) {
        try {
            byte[] d = MessageDigest.getInstance("MD5").digest(stateId.getBytes(StandardCharsets.UTF_8));
            long k = 0;
            for (int i = 0; i < 8; i++) {
                k = (k << 8) | (d[i] & 0xFF);
            }
            return k;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The stored state of an ID, if any. */
    public Optional<Row> find(String stateId) {
        List<?> rows = em.createNativeQuery("select state_id, completed, partial, version, updated_at"
                + " from singer_state where state_id = :id").setParameter("id", stateId).getResultList();
        return rows.isEmpty() ? Optional.empty() : Optional.of(row((Object[]) rows.get(0)));
    }

    /** Inserts or replaces a state with the given version and list status ({@code ok}, {@code empty}, {@code invalid}). */
    public void upsert(String stateId, String completed, String partial, String listStatus, long version,
                       OffsetDateTime now) {
        em.createNativeQuery("""
                insert into singer_state (state_id, completed, partial, list_status, version, updated_at)
                values (:id, :c, :p, :s, :v, :now)
                on conflict (state_id) do update set completed = excluded.completed, partial = excluded.partial,
                    list_status = excluded.list_status, version = excluded.version, updated_at = excluded.updated_at
                """).setParameter("id", stateId).setParameter("c", completed).setParameter("p", partial)
                .setParameter("s", listStatus).setParameter("v", version).setParameter("now", now).executeUpdate();
    }

    /** Deletes a state; true when it existed. */
    public boolean delete(String stateId) {
        return em.createNativeQuery("delete from singer_state where state_id = :id").setParameter("id", stateId)
                .executeUpdate() == 1;
    }

    /** The highest version ever recorded for a state ID (history outlives clears), or 0. */
    public long lastVersion(String stateId) {
        Object v = em.createNativeQuery("select coalesce(max(version), 0) from singer_state_version where state_id = :id")
                .setParameter("id", stateId).getSingleResult();
        return ((Number) v).longValue();
    }

    /** Appends a history entry. */
    public void appendVersion(String stateId, Version v) {
        em.createNativeQuery("""
                insert into singer_state_version (state_id, version, source, action, actor, run_id, completed_before,
                    partial_before, completed_after, partial_after, created_at)
                values (:id, :v, :source, :action, :actor, :run, :cb, :pb, :ca, :pa, :at)
                """).setParameter("id", stateId).setParameter("v", v.version()).setParameter("source", v.source())
                .setParameter("action", v.action()).setParameter("actor", v.actor()).setParameter("run", v.runId())
                .setParameter("cb", v.completedBefore()).setParameter("pb", v.partialBefore())
                .setParameter("ca", v.completedAfter()).setParameter("pa", v.partialAfter())
                .setParameter("at", v.createdAt()).executeUpdate();
    }

    /** History of a state ID, newest first, versions lower than {@code beforeVersion} when given. */
    public List<Version> history(String stateId, Long beforeVersion, int limit) {
        List<?> rows = em.createNativeQuery("""
                select version, source, action, actor, run_id, completed_before, partial_before, completed_after,
                    partial_after, created_at
                from singer_state_version where state_id = :id and (cast(:before as bigint) is null or version < :before)
                order by version desc limit :limit
                """).setParameter("id", stateId).setParameter("before", beforeVersion).setParameter("limit", limit)
                .getResultList();
        List<Version> out = new ArrayList<>();
        for (Object o : rows) {
            out.add(version((Object[]) o));
        }
        return out;
    }

    /** One history entry. */
    public Optional<Version> version(String stateId, long version) {
        List<?> rows = em.createNativeQuery("""
                select version, source, action, actor, run_id, completed_before, partial_before, completed_after,
                    partial_after, created_at
                from singer_state_version where state_id = :id and version = :v
                """).setParameter("id", stateId).setParameter("v", version).getResultList();
        return rows.isEmpty() ? Optional.empty() : Optional.of(version((Object[]) rows.get(0)));
    }

    /**
     * State IDs matching a POSIX regular expression (from a glob), ascending, after {@code after}.
     * Reads the stored list status, never the completed/partial bodies, so a page costs the same
     * whatever the size of the states on it.
     *
     * @return entries of the page
     */
    public List<Listed> list(String regex, String after, int limit) {
        List<?> rows = em.createNativeQuery("""
                select state_id, list_status, version, updated_at from singer_state
                where (cast(:re as text) is null or state_id ~ :re) and (cast(:after as text) is null or state_id collate "C" > :after)
                order by state_id collate "C" limit :limit
                """).setParameter("re", regex).setParameter("after", after).setParameter("limit", limit).getResultList();
        List<Listed> out = new ArrayList<>();
        for (Object o : rows) {
            Object[] r = (Object[]) o;
            out.add(new Listed((String) r[0], (String) r[1], ((Number) r[2]).longValue(), time(r[3])));
        }
        return out;
    }

    /** Every state ID, ascending: for export and clear-all. */
    public List<String> allIds() {
        return em.createNativeQuery("select state_id from singer_state order by state_id collate \"C\"", String.class)
                .getResultList();
    }

    private static Row row(Object[] r) {
        return new Row((String) r[0], (String) r[1], (String) r[2], ((Number) r[3]).longValue(), time(r[4]));
    }

    private static Version version(Object[] r) {
        return new Version(((Number) r[0]).longValue(), (String) r[1], (String) r[2], (String) r[3], (UUID) r[4],
                (String) r[5], (String) r[6], (String) r[7], (String) r[8], time(r[9]));
    }

    private static OffsetDateTime time(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof OffsetDateTime t) {
            return t;
        }
        if (o instanceof java.time.Instant i) {
            return i.atOffset(java.time.ZoneOffset.UTC);
        }
        if (o instanceof java.sql.Timestamp ts) {
            return ts.toInstant().atOffset(java.time.ZoneOffset.UTC);
        }
        throw new IllegalStateException("unexpected time type " + o.getClass());
    }
}
