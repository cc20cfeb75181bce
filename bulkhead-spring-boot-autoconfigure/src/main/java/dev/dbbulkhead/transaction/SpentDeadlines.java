package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.Permit;
import java.sql.SQLException;
import org.springframework.transaction.TransactionTimedOutException;

/**
 * Tells a rolled-back operation that ran out of its deadline from one that failed otherwise. A timeout counts as
 * the deadline's only when the budget is spent by the time it is seen: the statement_timeout cap and the
 * transaction's time both end at the deadline or later, while a statement timeout the application set as a hard
 * limit ends a statement with budget to spare.
 */
final class SpentDeadlines {

    /** PostgreSQL's query_canceled: a statement ended by statement_timeout (or by a cancel request). */
    private static final String QUERY_CANCELED = "57014";

    private SpentDeadlines() {
    }

    /**
     * Throws {@link DeadlineExceededException}, with {@code failure} as its cause, when {@code failure} is a timeout
     * and the deadline of {@code permit} is spent; returns otherwise.
     */
    static void rethrowIfSpent(Permit permit, Throwable failure) {
        if (permit.remainingNanos() <= 0 && isTimeout(failure)) {
            throw new DeadlineExceededException(permit.workload(), failure);
        }
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
