package io.tapline.state.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SQL of {@code state_mirror_file}: per state ID, the SHA-256 (lowercase hex) of the
 * {@code state.json} bytes Tapline last wrote into the shared Meltano directory or accepted from
 * it. Callers run inside a transaction.
 */
@ApplicationScoped
public class MirrorFileRepository {

    @Inject
    EntityManager em;

    /** The recorded digest of a state ID's mirror file, if Tapline has one there. */
    public Optional<String> find(String stateId) {
        List<?> rows = em.createNativeQuery("select sha256 from state_mirror_file where state_id = :id")
                .setParameter("id", stateId).getResultList();
        return rows.isEmpty() ? Optional.empty() : Optional.of(((String) rows.get(0)).trim());
    }

    /** True when Tapline has recorded a file for at least one state ID. */
    public boolean any() {
        return !em.createNativeQuery("select 1 from state_mirror_file limit 1").getResultList().isEmpty();
    }

    /** Every recorded digest, by state ID. */
    public Map<String, String> all() {
        Map<String, String> out = new HashMap<>();
        for (Object r : em.createNativeQuery("select state_id, sha256 from state_mirror_file").getResultList()) {
            Object[] row = (Object[]) r;
            out.put((String) row[0], ((String) row[1]).trim());
        }
        return out;
    }

    /** Records the digest of the file now in the directory ({@code null}: there is none). */
    public void record(String stateId, String sha256, OffsetDateTime now) {
        if (sha256 == null) {
            em.createNativeQuery("delete from state_mirror_file where state_id = :id").setParameter("id", stateId)
                    .executeUpdate();
            return;
        }
        em.createNativeQuery("""
                insert into state_mirror_file (state_id, sha256, updated_at) values (:id, :h, :now)
                on conflict (state_id) do update set sha256 = excluded.sha256, updated_at = excluded.updated_at
                """).setParameter("id", stateId).setParameter("h", sha256).setParameter("now", now).executeUpdate();
    }
}
