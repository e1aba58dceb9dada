package io.tapline.state.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;

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
 * The statements a history page is read with piece by piece ({@code api.HistoryJson}, issue 31): the
 * size of each entry first, then entries in batches ({@link StateRepository#history}), and a
 * large entry one side at a time. Plain JDBC on the default datasource, reading
 * {@code singer_state_version} only.
 */
@ApplicationScoped
public class StateHistoryRepository {

    private final DataSource dataSource;

    public StateHistoryRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The versions of a page of history and the size of each entry, newest first, versions lower
     * than {@code beforeVersion} when given: what a history read learns before it reads the values.
     *
     * @return [version, bytes of the four sides together] per entry
     */
    public List<long[]> historySizes(String stateId, Long beforeVersion, int limit) {
        String sql = "select version, coalesce(octet_length(completed_before), 0) + coalesce(octet_length(partial_before), 0)"
                + " + coalesce(octet_length(completed_after), 0) + coalesce(octet_length(partial_after), 0)"
                + " from singer_state_version where state_id = ? and version < ? order by version desc limit ?";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, stateId);
            s.setLong(2, beforeVersion == null ? Long.MAX_VALUE : beforeVersion);
            s.setInt(3, limit);
            List<long[]> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new long[] {r.getLong(1), r.getLong(2)});
                }
            }
            return out;
        } catch (SQLException e) {
            throw new PersistenceException("Could not read state history: " + e.getMessage(), e);
        }
    }

    /** A side of a history entry, by its column. */
    public enum Side {
        COMPLETED_BEFORE("completed_before"), PARTIAL_BEFORE("partial_before"), COMPLETED_AFTER("completed_after"),
        PARTIAL_AFTER("partial_after");

        private final String column;

        Side(String column) {
            this.column = column;
        }
    }

    /**
     * A history entry without its texts: each side is {@code ""} when stored and null when not
     * (what {@link StateRepository.Version} holds there), so a large entry's sides can then be read one at a time
     * ({@link #versionSide}).
     */
    public Optional<StateRepository.Version> versionHead(String stateId, long version) {
        String sql = "select version, source, action, actor, run_id, case when completed_before is null then null else ''"
                + " end, case when partial_before is null then null else '' end, case when completed_after is null then"
                + " null else '' end, case when partial_after is null then null else '' end, created_at"
                + " from singer_state_version where state_id = ? and version = ?";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, stateId);
            s.setLong(2, version);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                return Optional.of(new StateRepository.Version(r.getLong(1), r.getString(2), r.getString(3), r.getString(4),
                        r.getObject(5, UUID.class), r.getString(6), r.getString(7), r.getString(8), r.getString(9),
                        r.getObject(10, OffsetDateTime.class)));
            }
        } catch (SQLException e) {
            throw new PersistenceException("Could not read state history: " + e.getMessage(), e);
        }
    }

    /** One side's text of a history entry, or null (also when there is no such entry). */
    public String versionSide(String stateId, long version, Side side) {
        String sql = "select " + side.column + " from singer_state_version where state_id = ? and version = ?";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, stateId);
            s.setLong(2, version);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new PersistenceException("Could not read state history: " + e.getMessage(), e);
        }
    }
}
