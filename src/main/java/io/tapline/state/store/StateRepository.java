package io.tapline.state.store;

import io.tapline.audit.AuditEvent;
import io.tapline.audit.AuditRepository;
import io.tapline.state.json.PythonJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * SQL of the state store ({@code singer_state}, {@code singer_state_version}). Values are the
 * JSON text written by {@link PythonJson}; nothing here parses them. The statements of a state
 * read and of a write ({@link #find}, {@link #lockAndRead}, {@link #store}) are plain JDBC on the
 * default datasource, prepared (the driver keeps them prepared per connection) and sent several at
 * a time where they follow each other; inside a transaction they share its connection with the ORM.
 * bench/state/get.sql and put.sql run the same statements.
 */
@ApplicationScoped
public class StateRepository {

    @Inject
    EntityManager em;

    /** The default datasource: the hot paths use it directly (within the caller's transaction, if any). */
    @Inject
    DataSource dataSource;

    static final String LOCK = "select pg_advisory_xact_lock(?)";
    static final String ACTIVE_RUN = "select id, status from pipeline_run where state_id = ?"
            + " and status in ('QUEUED', 'RUNNING') limit 1";
    static final String FIND = "select state_id, completed, partial, version, updated_at from singer_state"
            + " where state_id = ?";
    /**
     * As {@link #FIND}, with the texts only when together they are at most {@code ?} bytes (the
     * stored text is ASCII), and their size: a read learns the size of a state before it holds it.
     */
    static final String FIND_BOUNDED = "select state_id, case when octet_length(completed) + octet_length(partial) <= ?"
            + " then completed end, case when octet_length(completed) + octet_length(partial) <= ? then partial end,"
            + " version, updated_at, octet_length(completed) + octet_length(partial) from singer_state where state_id = ?";
    /** As {@link #FIND_SIDES}, with the texts only when together they are at most {@code ?} bytes, and their size. */
    static final String FIND_SIDES_BOUNDED = "select case when octet_length(completed) + octet_length(partial) <= ?"
            + " then completed end, case when octet_length(completed) + octet_length(partial) <= ? then partial end,"
            + " version, octet_length(completed) + octet_length(partial) from singer_state where state_id = ?";
    static final String FIND_SIDES = "select completed, partial, version from singer_state where state_id = ?";
    /**
     * The last version in the history, read only when no state is stored: a stored state's version
     * is always its history's highest (both are written together), and the uncorrelated
     * {@code not exists} is a one-time filter, so the history is not scanned at all in the usual
     * case whatever plan the server has cached for the statement (a plan made while the history
     * was small can be a sequential scan of it).
     */
    static final String LAST_VERSION = "select coalesce(max(version), 0) from singer_state_version where state_id = ?"
            + " and not exists (select 1 from singer_state where state_id = ?)";
    static final String UPSERT = "insert into singer_state (state_id, completed, partial, list_status, version,"
            + " updated_at) values (?, ?, ?, ?, ?, ?) on conflict (state_id) do update set completed ="
            + " excluded.completed, partial = excluded.partial, list_status = excluded.list_status, version ="
            + " excluded.version, updated_at = excluded.updated_at";
    static final String DELETE = "delete from singer_state where state_id = ?";
    static final String APPEND_VERSION = "insert into singer_state_version (state_id, version, source, action, actor,"
            + " run_id, completed_before, partial_before, completed_after, partial_after, created_at)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

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
     * The two sides and the version of a stored state: what a bookmark read needs.
     *
     * @param completed completed side, JSON text
     * @param partial partial side, JSON text
     * @param version version number, 1 for the first write
     */
    public record Sides(String completed, String partial, long version) {
    }

    /**
     * One entry of a state list: what {@code GET /api/v1/states} returns, never the bodies.
     *
     * @param stateId the state ID
     * @param status {@code ok}, {@code empty} or {@code invalid}, stored at each write ({@link io.tapline.state.model.MeltanoState#listStatus})
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
     * What a writer of a state ID sees once it holds the ID's lock ({@link #lockAndRead}).
     *
     * @param row the stored state, or null when the ID has none
     * @param activeRunId a QUEUED or RUNNING run of the ID, or null (also when not asked for)
     * @param activeRunStatus that run's status, or null
     * @param lastVersion with no stored state, the highest version ever recorded for the ID (history
     *     outlives clears), or 0; 0 when a state is stored (its own version is the highest)
     */
    public record Locked(Row row, UUID activeRunId, String activeRunStatus, long lastVersion) {
    }

    /**
     * Serialises writers of one state ID until the transaction ends, with the same key the Meltano
     * PostgreSQL state backend locks ({@code md5(state_id)} first 8 bytes, big-endian signed;
     * meltano-state.md §6.7), so Meltano and Tapline never interleave a read-modify-write.
     */
    public void lock(String stateId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(LOCK)) {
            s.setLong(1, lockKey(stateId));
            s.execute();
        } catch (SQLException e) {
            throw failed("lock state ID", e);
        }
    }

    /**
     * Takes the state ID's lock ({@link #lock}) and then reads, each statement after the lock and so
     * seeing every change committed before it: the active run (when {@code withActiveRun}), the
     * stored state and the last version. The statements go to the database in one round trip.
     */
    public Locked lockAndRead(String stateId, boolean withActiveRun) {
        String sql = withActiveRun ? LOCK + ";\n" + ACTIVE_RUN + ";\n" + FIND + ";\n" + LAST_VERSION
                : LOCK + ";\n" + FIND + ";\n" + LAST_VERSION;
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            s.setLong(i++, lockKey(stateId));
            if (withActiveRun) {
                s.setString(i++, stateId);
            }
            s.setString(i++, stateId);
            s.setString(i++, stateId);
            s.setString(i, stateId);
            s.execute(); // the lock's row
            UUID runId = null;
            String runStatus = null;
            if (withActiveRun) {
                next(s);
                try (ResultSet r = s.getResultSet()) {
                    if (r.next()) {
                        runId = r.getObject(1, UUID.class);
                        runStatus = r.getString(2);
                    }
                }
            }
            next(s);
            Row row;
            try (ResultSet r = s.getResultSet()) {
                row = r.next() ? row(r) : null;
            }
            next(s);
            long last;
            try (ResultSet r = s.getResultSet()) {
                r.next();
                last = r.getLong(1);
            }
            return new Locked(row, runId, runStatus, last);
        } catch (SQLException e) {
            throw failed("read state ID", e);
        }
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

    /** The stored state of an ID, if any (one statement). */
    public Optional<Row> find(String stateId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(FIND)) {
            s.setString(1, stateId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(row(r)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw failed("read state ID", e);
        }
    }

    /**
     * The stored state of an ID, read in one statement when its texts together are at most
     * {@code maxBytes} bytes; a larger one is read by a second statement only after {@code beforeLarge}
     * has run (it may refuse the read by throwing: it is how a read takes its place among the
     * large reads).
     */
    public Optional<Row> find(String stateId, long maxBytes, Runnable beforeLarge) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(FIND_BOUNDED)) {
            s.setLong(1, maxBytes);
            s.setLong(2, maxBytes);
            s.setString(3, stateId);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                if (r.getLong(6) <= maxBytes) {
                    return Optional.of(row(r));
                }
            }
        } catch (SQLException e) {
            throw failed("read state ID", e);
        }
        beforeLarge.run();
        return find(stateId);
    }

    /**
     * As {@link #findSides(String)} in one statement when the texts together are at most
     * {@code maxBytes} bytes; a larger state is read by a second statement only after
     * {@code beforeLarge} has run (it may refuse by throwing).
     */
    public Optional<Sides> findSides(String stateId, long maxBytes, Runnable beforeLarge) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(FIND_SIDES_BOUNDED)) {
            s.setLong(1, maxBytes);
            s.setLong(2, maxBytes);
            s.setString(3, stateId);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                if (r.getLong(4) <= maxBytes) {
                    return Optional.of(new Sides(r.getString(1), r.getString(2), r.getLong(3)));
                }
            }
        } catch (SQLException e) {
            throw failed("read state ID", e);
        }
        beforeLarge.run();
        return findSides(stateId);
    }

    /** The sides and version of an ID's stored state, if any (one statement, nothing else read). */
    public Optional<Sides> findSides(String stateId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(FIND_SIDES)) {
            s.setString(1, stateId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(new Sides(r.getString(1), r.getString(2), r.getLong(3))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw failed("read state ID", e);
        }
    }

    /**
     * Stores a change of a state ID, appends its history entry and, when given, its audit event, in
     * one round trip: inserts or replaces the state with {@code v}'s version and the list status
     * ({@code ok}, {@code empty}, {@code invalid}), or deletes it when {@code v.completedAfter()} is
     * null.
     *
     * @param audit the audit event of the change ({@link io.tapline.audit.AuditService#event}), or null
     */
    public void store(String stateId, String listStatus, Version v, AuditEvent audit) {
        boolean clear = v.completedAfter() == null;
        String sql = (clear ? DELETE : UPSERT) + ";\n" + APPEND_VERSION + (audit == null ? "" : ";\n" + AuditRepository.INSERT);
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            s.setString(i++, stateId);
            if (!clear) {
                s.setString(i++, v.completedAfter());
                s.setString(i++, v.partialAfter());
                s.setString(i++, listStatus);
                s.setLong(i++, v.version());
                s.setObject(i++, v.createdAt());
            }
            s.setString(i++, stateId);
            s.setLong(i++, v.version());
            s.setString(i++, v.source());
            s.setString(i++, v.action());
            s.setString(i++, v.actor());
            s.setObject(i++, v.runId());
            s.setString(i++, v.completedBefore());
            s.setString(i++, v.partialBefore());
            s.setString(i++, v.completedAfter());
            s.setString(i++, v.partialAfter());
            s.setObject(i++, v.createdAt());
            if (audit != null) {
                AuditRepository.bind(s, i, audit);
            }
            s.execute();
        } catch (SQLException e) {
            throw failed("store state ID", e);
        }
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

    private static void next(PreparedStatement s) throws SQLException {
        if (!s.getMoreResults()) {
            throw new SQLException("a statement of the batch returned no rows");
        }
    }

    private static Row row(ResultSet r) throws SQLException {
        return new Row(r.getString(1), r.getString(2), r.getString(3), r.getLong(4),
                r.getObject(5, OffsetDateTime.class));
    }

    private static PersistenceException failed(String what, SQLException e) {
        return new PersistenceException("Could not " + what + ": " + e.getMessage(), e);
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
