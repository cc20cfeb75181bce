package dev.dbbulkhead.metrics;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * A lock wait PostgreSQL ended by failing the statement, as the {@code kind} of {@code db.bulkhead.lock.failures}: read
 * from the SQLState of the first {@link SQLException} in the failure's cause chain, where Spring's and Hibernate's
 * translations keep the driver's exception.
 */
enum LockFailure {

    /** 55P03, lock_not_available: the wait ran past {@code lock_timeout}, or {@code NOWAIT} found the lock taken. */
    TIMEOUT("timeout", "55P03"),
    /** 40P01, deadlock_detected: the server broke a cycle of waits by failing this transaction. */
    DEADLOCK("deadlock", "40P01");

    private final String tagValue;
    private final String sqlState;

    LockFailure(String tagValue, String sqlState) {
        this.tagValue = tagValue;
        this.sqlState = sqlState;
    }

    String tagValue() {
        return tagValue;
    }

    /** The lock failure that {@code failure} is, or {@code null} when it is none. */
    static @Nullable LockFailure of(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return bySqlState(sql.getSQLState());
            }
        }
        return null;
    }

    private static @Nullable LockFailure bySqlState(@Nullable String sqlState) {
        for (LockFailure kind : values()) {
            if (kind.sqlState.equals(sqlState)) {
                return kind;
            }
        }
        return null;
    }
}
