package io.tapline.audit;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.quarkus.panache.common.Parameters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import java.time.OffsetDateTime;
import java.util.List;

/** Queries on {@link AuditEvent}. */
@ApplicationScoped
public class AuditRepository implements PanacheRepository<AuditEvent> {

    /** The statement that stores an event; its seven parameters are bound by {@link #bind}. */
    public static final String INSERT = "insert into audit_event (at, actor, action, target_type, target, details,"
            + " request_id) values (?, ?, ?, ?, ?, ?, ?)";

    /** The default datasource: events are inserted with plain JDBC, in the caller's transaction. */
    @Inject
    DataSource dataSource;

    /**
     * Inserts an event (its {@code id} stays unset: nothing reads it back in the writer's
     * transaction), in one statement on the caller's transaction's connection.
     */
    public void insert(AuditEvent e) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(INSERT)) {
            bind(s, 1, e);
            s.executeUpdate();
        } catch (SQLException x) {
            throw new PersistenceException("Could not record the audit event " + e.action + ": " + x.getMessage(), x);
        }
    }

    /**
     * Binds the parameters of {@link #INSERT} for {@code e}, starting at parameter {@code from}.
     *
     * @return the index of the next parameter
     */
    public static int bind(PreparedStatement s, int from, AuditEvent e) throws SQLException {
        s.setObject(from, e.at);
        s.setString(from + 1, e.actor);
        s.setString(from + 2, e.action);
        s.setString(from + 3, e.targetType);
        s.setString(from + 4, e.target);
        s.setString(from + 5, e.details);
        s.setString(from + 6, e.requestId);
        return from + 7;
    }

    /**
     * Filters of the audit listing; null fields do not filter.
     *
     * @param actor exact actor
     * @param action exact action, or a prefix ending in {@code .} ({@code state.} for every state action)
     * @param targetType exact target type
     * @param target exact target
     * @param from at or after (inclusive)
     * @param to before (exclusive)
     */
    public record AuditFilter(String actor, String action, String targetType, String target, OffsetDateTime from,
                              OffsetDateTime to) {
    }

    /**
     * One page, newest first (keyset on {@code (at, id)} descending).
     *
     * @param beforeAt with {@code beforeId}: only events strictly after this key in the order, or null
     * @param limit page size
     */
    public List<AuditEvent> page(AuditFilter f, OffsetDateTime beforeAt, Long beforeId, int limit) {
        StringBuilder q = new StringBuilder("1 = 1");
        Parameters p = new Parameters();
        if (f.actor() != null) {
            q.append(" and actor = :actor");
            p = p.and("actor", f.actor());
        }
        if (f.action() != null) {
            if (f.action().endsWith(".")) {
                q.append(" and action like :action");
                p = p.and("action", f.action().replace("%", "\\%").replace("_", "\\_") + "%");
            } else {
                q.append(" and action = :action");
                p = p.and("action", f.action());
            }
        }
        if (f.targetType() != null) {
            q.append(" and targetType = :targetType");
            p = p.and("targetType", f.targetType());
        }
        if (f.target() != null) {
            q.append(" and target = :target");
            p = p.and("target", f.target());
        }
        if (f.from() != null) {
            q.append(" and at >= :from");
            p = p.and("from", f.from());
        }
        if (f.to() != null) {
            q.append(" and at < :to");
            p = p.and("to", f.to());
        }
        if (beforeAt != null) {
            q.append(" and (at < :bat or (at = :bat and id < :bid))");
            p = p.and("bat", beforeAt).and("bid", beforeId);
        }
        q.append(" order by at desc, id desc");
        return find(q.toString(), p).page(0, limit).list();
    }
}
