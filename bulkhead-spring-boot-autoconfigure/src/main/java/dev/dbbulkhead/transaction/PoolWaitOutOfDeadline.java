package dev.dbbulkhead.transaction;

import java.sql.SQLTransientConnectionException;

/**
 * No connection came free within what was left of an admitted operation's deadline ({@link DeadlinePoolWait}): what
 * tells {@link BulkheadTemplate} that the deadline, not the pool's own timeout, ended the wait. HikariCP's timeout is
 * the cause, and its SQLState and vendor code are kept.
 */
final class PoolWaitOutOfDeadline extends SQLTransientConnectionException {

    private static final long serialVersionUID = 1L;

    PoolWaitOutOfDeadline(String poolName, long boundMillis, long connectionTimeoutMillis,
                          SQLTransientConnectionException timedOut) {
        super(poolName + " - no connection within what was left of the operation's deadline: the wait was bounded"
                + " to " + boundMillis + " ms of the pool's connectionTimeout of " + connectionTimeoutMillis + " ms",
                timedOut.getSQLState(), timedOut.getErrorCode(), timedOut);
    }
}
