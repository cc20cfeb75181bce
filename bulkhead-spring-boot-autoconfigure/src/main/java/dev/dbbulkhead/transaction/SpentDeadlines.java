package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.Permit;
import java.sql.SQLException;
import org.springframework.transaction.TransactionTimedOutException;

/**
 * Tells a rolled-back operation that ran out of its deadline from one that failed otherwise. A timeout counts as
 * the deadline's only when the budget is spent by the time it is seen: the statement_timeout cap and the
 * transaction's time both end at the deadline or later, while a statement timeout the application set as a hard
 * limit ends a statement with budget to spare. A pool wait the deadline bounded says so by its exception.
 */
final class SpentDeadlines {

    /** PostgreSQL's query_canceled: a statement ended by statement_timeout (or by a cancel request). */
    private static final String QUERY_CANCELED = "57014";

    private SpentDeadlines() {
    }

    /**
     * Throws {@link DeadlineExceededException}, with {@code failure} as its cause, when {@code failure} is a timeout
     * and the deadline of {@code permit} is spent, or comes from a pool wait the deadline ended (a connection the
     * work asked for itself); returns otherwise.
     */
    static void rethrowIfSpent(Permit permit, Throwable failure) {
        if (endedWaitingForConnection(failure) || permit.remainingNanos() <= 0 && isTimeout(failure)) {
            throw new DeadlineExceededException(permit.workload(), failure);
        }
    }

    /**
     * Throws {@link DeadlineExceededException}, with {@code failure} as its cause, when {@code failure} — what the
     * transaction manager threw as it began the transaction — comes from a pool wait the deadline ended; returns
     * otherwise.
     */
    static void rethrowIfPoolWaitEnded(Permit permit, Throwable failure) {
        if (endedWaitingForConnection(failure)) {
            throw DeadlineExceededException.waitingForConnection(permit.workload(), failure);
        }
    }

    /**
     * Whether a pool wait the deadline bounded ran out ({@link PoolWaitOutOfDeadline}), whichever framework wrapped
     * it. The bound proves it, not the clock: HikariCP may give up a few microseconds before the bound it was given.
     */
    private static boolean endedWaitingForConnection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof PoolWaitOutOfDeadline) {
                return true;
            }
        }
        return false;
    }

    private static boolean isTimeout(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TransactionTimedOutException
                    || cause instanceof SQLException sql && QUERY_CANCELED.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
