package io.tapline.audit;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.quarkus.panache.common.Parameters;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.List;

/** Queries on {@link AuditEvent}. */
@ApplicationScoped
public class AuditRepository implements PanacheRepository<AuditEvent> {

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
