package dev.dbbulkhead.retry;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which failures are safe to retry: the ones after which the operation is known not to have taken effect. Those are
 * the database's rollback of the whole transaction for a serialization failure (SQLState 40001) or a deadlock
 * (40P01), and the gate's own refusals. A {@link CommitOutcomeUnknownException} anywhere in the failure makes it
 * not retryable whatever else it carries: the write may have happened, and retrying it blindly could apply it twice.
 *
 * <p>The failure is searched whole, because frameworks wrap the driver's exception (Spring's translation, JPA's
 * {@code PersistenceException}) and drivers chain theirs: every cause, and every {@link SQLException#getNextException()
 * next exception} of an SQLException (a batch reports its failing statement there), each visited once even if the
 * chains loop. Suppressed exceptions are not searched: there they record a cleanup that failed after the operation
 * had (a rollback), not why it failed.
 */
public final class RetryableFailures {

    private static final String SERIALIZATION_FAILURE = "40001";
    private static final String DEADLOCK_DETECTED = "40P01";

    private RetryableFailures() {
    }

    /** Whether {@code failure} may be retried: {@code classify(failure).retryable()}. */
    public static boolean isRetryable(Throwable failure) {
        return classify(failure).retryable();
    }

    /**
     * @return {@link RetryDecision#OUTCOME_UNKNOWN} when a {@link CommitOutcomeUnknownException} is anywhere in
     *         {@code failure}; otherwise the first retryable reason found, causes searched before next exceptions;
     *         otherwise {@link RetryDecision#NOT_RETRYABLE}
     */
    public static RetryDecision classify(Throwable failure) {
        RetryDecision first = RetryDecision.NOT_RETRYABLE;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> toVisit = new ArrayDeque<>();
        toVisit.push(failure);
        while (!toVisit.isEmpty()) {
            Throwable visited = toVisit.pop();
            if (!seen.add(visited)) {
                continue;
            }
            RetryDecision decision = decisionFor(visited);
            if (decision == RetryDecision.OUTCOME_UNKNOWN) {
                return decision;
            }
            if (first == RetryDecision.NOT_RETRYABLE) {
                first = decision;
            }
            if (visited instanceof SQLException sql) {
                pushIfPresent(toVisit, sql.getNextException());
            }
            // Pushed last, so popped first: the cause chain is searched before the next exceptions.
            pushIfPresent(toVisit, visited.getCause());
        }
        return first;
    }

    private static RetryDecision decisionFor(Throwable failure) {
        if (failure instanceof CommitOutcomeUnknownException) {
            return RetryDecision.OUTCOME_UNKNOWN;
        }
        if (failure instanceof BulkheadRejectedException) {
            return RetryDecision.REJECTED_BY_GATE;
        }
        if (failure instanceof SQLException sql) {
            String sqlState = sql.getSQLState();
            if (SERIALIZATION_FAILURE.equals(sqlState)) {
                return RetryDecision.SERIALIZATION_FAILURE;
            }
            if (DEADLOCK_DETECTED.equals(sqlState)) {
                return RetryDecision.DEADLOCK;
            }
        }
        return RetryDecision.NOT_RETRYABLE;
    }

    private static void pushIfPresent(Deque<Throwable> toVisit, @Nullable Throwable failure) {
        if (failure != null) {
            toVisit.push(failure);
        }
    }
}
