package dev.dbbulkhead.transaction;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.RequestDeadline;
import dev.dbbulkhead.retry.RetryBackoff;
import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.retry.RetryableFailures;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * How a template retries an operation: at most {@code maxAttempts} attempts, a retry only for a failure that is safe
 * to retry ({@link RetryableFailures}: a serialization failure, a deadlock, a refusal of the gate; never an unknown
 * commit outcome), only while the workload's {@link RetryBudget} grants it, and after a jittered backoff that fits in
 * what is left of the deadline. Each attempt is a whole admitted operation: the permit is given back before the
 * backoff, so a retry waits for its place like any caller. Immutable; shared by the template's callers.
 */
final class TemplateRetries {

    private final int maxAttempts;
    private final RetryBudget budget;
    private final RetryBackoff backoff;

    TemplateRetries(int maxAttempts, RetryBudget budget) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.budget = budget;
        this.backoff = new RetryBackoff(budget.config());
    }

    int maxAttempts() {
        return maxAttempts;
    }

    RetryBudget budget() {
        return budget;
    }

    /**
     * Runs {@code attempt} until it returns, or fails in a way not to retry, or the attempts, the budget or the time
     * run out: then its last failure is thrown. An interrupt during the backoff ends the retries with that failure,
     * the interrupt status set.
     */
    <T> T run(Supplier<T> attempt) {
        budget.recordFirstAttempt();
        for (int retry = 0; ; retry++) {
            try {
                return attempt.get();
            } catch (RuntimeException failure) {
                if (!mayRetry(retry, failure)) {
                    throw failure;
                }
                long left = RequestDeadline.current().map(RequestDeadline::remainingNanos).orElse(Long.MAX_VALUE);
                long pause = backoff.nanosUntilNext(retry, left);
                if (pause == RetryBackoff.NO_TIME_LEFT || !budget.tryWithdraw()) {
                    throw failure;
                }
                if (pause > 0) {
                    LockSupport.parkNanos(pause);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw failure;
                }
            }
        }
    }

    private boolean mayRetry(int retry, RuntimeException failure) {
        if (retry + 1 >= maxAttempts || Thread.currentThread().isInterrupted()) {
            return false;
        }
        // A caller interrupted while it waited asked to stop, not to be tried again.
        if (failure instanceof BulkheadRejectedException rejected && rejected.reason() == RejectionReason.INTERRUPTED) {
            return false;
        }
        return RetryableFailures.isRetryable(failure);
    }
}
