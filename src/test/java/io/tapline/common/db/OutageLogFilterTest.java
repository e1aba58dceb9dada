package io.tapline.common.db;

import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

import javax.transaction.xa.XAException;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** StateStoreOutageIT saw this WARN with its stack trace on every shutdown during an outage. */
class OutageLogFilterTest {

    private final OutageLogFilter filter = new OutageLogFilter();

    private static LogRecord record(String logger, String message, Throwable thrown) {
        LogRecord r = new LogRecord(Level.WARNING, message);
        r.setLoggerName(logger);
        r.setThrown(thrown);
        return r;
    }

    private static XAException rollbackFailed(Throwable cause) {
        XAException e = new XAException("Error trying to transactionRollback local transaction: " + cause.getMessage());
        e.initCause(cause);
        return e;
    }

    @Test
    void aRollbackOfAConnectionTheOutageClosedIsDropped() {
        PSQLException closed = new PSQLException("This connection has been closed.", PSQLState.CONNECTION_DOES_NOT_EXIST);
        assertFalse(filter.isLoggable(record("com.arjuna.ats.jta",
                "ARJUNA016045: attempted rollback of < formatId=131077 > failed with exception code XAException.XAER_RMERR",
                rollbackFailed(closed))));
    }

    @Test
    void aRollbackThatFailedForAnotherReasonIsKept() {
        PSQLException other = new PSQLException("deadlock detected", PSQLState.UNKNOWN_STATE);
        assertTrue(filter.isLoggable(record("com.arjuna.ats.jta", "ARJUNA016045: attempted rollback failed",
                rollbackFailed(other))));
    }

    @Test
    void otherMessagesAndLoggersPass() {
        PSQLException closed = new PSQLException("This connection has been closed.", PSQLState.CONNECTION_DOES_NOT_EXIST);
        assertTrue(filter.isLoggable(record("com.arjuna.ats.jta", "ARJUNA016051: thread is already associated", closed)));
        assertTrue(filter.isLoggable(record("io.tapline.run", "ARJUNA016045: quoted by someone else", closed)));
        assertTrue(filter.isLoggable(record(null, null, null)));
    }

    @Test
    void unreachableFollowsTheCauseChainAndKnowsThePoolTimeout() {
        assertTrue(DatabaseErrors.unreachable(new RuntimeException(new java.sql.SQLException("x", "08006"))));
        assertTrue(DatabaseErrors.unreachable(new IllegalStateException("Acquisition timeout while waiting for new connection")));
        assertFalse(DatabaseErrors.unreachable(new java.sql.SQLException("duplicate key", "23505")));
        assertFalse(DatabaseErrors.unreachable(null));
    }
}
