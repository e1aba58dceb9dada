package io.tapline.common.db;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/**
 * The one test of "the database cannot be reached": connection refused, lost, closed or not
 * acquired in time. Used by {@link DatabaseRetry} (the run end writer waits out an outage), the problem
 * mapper (503 instead of 500) and the log filter that quiets the transaction manager's rollbacks
 * of connections an outage already closed.
 */
public final class DatabaseErrors {

    private DatabaseErrors() {
    }

    /**
     * True when {@code e} or one of its causes says the database cannot be reached: a
     * {@link ConnectException}, a JDBC connection exception, SQLSTATE class 08 (connection
     * exception, PostgreSQL's "This connection has been closed." is 08003), Hibernate's
     * {@code JDBCConnectionException}, or the pool's acquisition timeout.
     *
     * @param e any throwable, or null (false)
     */
    public static boolean unreachable(Throwable e) {
        int depth = 0;
        for (Throwable t = e; t != null && depth++ < 32; t = t.getCause() == t ? null : t.getCause()) {
            if (connectionFailure(t)) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code t} itself (not its causes) is one of the failures {@link #unreachable} names. */
    public static boolean connectionFailure(Throwable t) {
        if (t instanceof ConnectException || t instanceof SQLTransientConnectionException
                || t instanceof SQLNonTransientConnectionException
                || t instanceof org.hibernate.exception.JDBCConnectionException) {
            return true;
        }
        if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
            return true;
        }
        String m = String.valueOf(t.getMessage());
        return m.contains("Acquisition timeout") || m.contains("Connection refused") || m.contains("connection attempt")
                || m.contains("This connection has been closed") || m.contains("terminating connection");
    }
}
