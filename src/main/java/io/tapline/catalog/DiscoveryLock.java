package io.tapline.catalog;

import jakarta.enterprise.context.ApplicationScoped;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The cluster-wide "one discovery per extractor at a time" lock: a PostgreSQL session-level
 * advisory lock ({@code pg_try_advisory_lock(int, int)}, class {@value #LOCK_CLASS}, object the
 * extractor's plugin id) held on a dedicated connection for as long as the discovery runs (a
 * transaction-level lock would end with a short transaction, long before a discovery does). The
 * two-int key space never meets the state IDs' bigint locks. A waiter polls every
 * {@value #POLL_MS} ms so that a cancel or the run's timeout ends the wait; if the holder's
 * replica dies, PostgreSQL drops its session and the lock with it.
 */
@ApplicationScoped
public class DiscoveryLock {

    /** The advisory-lock class of catalog discoveries. */
    static final int LOCK_CLASS = 160_016;
    static final int POLL_MS = 200;

    private final DataSource dataSource;

    public DiscoveryLock(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** A held lock; {@link #close} releases it and returns the connection. */
    public static final class Held implements AutoCloseable {
        private final Connection connection;
        private final int object;

        private Held(Connection connection, int object) {
            this.connection = connection;
            this.object = object;
        }

        @Override
        public void close() {
            try (Connection c = connection; PreparedStatement s = c.prepareStatement("select pg_advisory_unlock(?, ?)")) {
                s.setInt(1, LOCK_CLASS);
                s.setInt(2, object);
                s.execute();
            } catch (SQLException ignored) {
                // closing the session releases the lock anyway
            }
        }
    }

    /**
     * Takes the extractor's discovery lock, waiting while another replica or run holds it.
     *
     * @param pluginId the extractor
     * @param stopped polled between attempts; true ends the wait
     * @param waiting called once when the lock is taken by another discovery (before waiting)
     * @return the held lock, or null when {@code stopped} said so
     * @throws SQLException when the database cannot be reached
     */
    public Held acquire(long pluginId, BooleanSupplier stopped, Runnable waiting) throws SQLException {
        int object = Long.hashCode(pluginId);
        Connection c = dataSource.getConnection();
        boolean ok = false;
        boolean told = false;
        try {
            c.setAutoCommit(true);
            while (true) {
                try (PreparedStatement s = c.prepareStatement("select pg_try_advisory_lock(?, ?)")) {
                    s.setInt(1, LOCK_CLASS);
                    s.setInt(2, object);
                    try (ResultSet r = s.executeQuery()) {
                        r.next();
                        if (r.getBoolean(1)) {
                            ok = true;
                            return new Held(c, object);
                        }
                    }
                }
                if (stopped.getAsBoolean()) {
                    return null;
                }
                if (!told) {
                    told = true;
                    waiting.run();
                }
                try {
                    Thread.sleep(Duration.ofMillis(POLL_MS).toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        } finally {
            if (!ok) {
                c.close();
            }
        }
    }
}
