package io.tapline.common.db;

import io.quarkus.logging.LoggingFilter;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops the transaction manager's WARN (with a full stack trace) about a rollback that failed
 * because the connection was already gone: during a database outage every failed transaction
 * (a heartbeat each second, a checkpoint) would otherwise add one, while the server has rolled
 * the transaction back by itself when the connection died. Tapline's own lines say what the
 * outage did ("Heartbeat failed …", "Database unavailable …"). Other Narayana messages, and
 * rollbacks that failed for any other reason, pass unchanged.
 *
 * <p>Linked to the console and file handlers as {@code quarkus.log.*.filter=db-outage}.
 */
@LoggingFilter(name = "db-outage")
public final class OutageLogFilter implements Filter {

    /** Narayana's "attempted rollback of … failed with exception code …" (jtaI18NLogger). */
    static final String ROLLBACK_FAILED = "ARJUNA016045";

    @Override
    public boolean isLoggable(LogRecord record) {
        String logger = record.getLoggerName();
        if (logger == null || !logger.startsWith("com.arjuna")) {
            return true;
        }
        String message = record.getMessage();
        if (message == null || !message.startsWith(ROLLBACK_FAILED)) {
            return true;
        }
        return !DatabaseErrors.unreachable(record.getThrown());
    }
}
