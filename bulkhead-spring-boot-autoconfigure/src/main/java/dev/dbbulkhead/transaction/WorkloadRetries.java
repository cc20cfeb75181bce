package dev.dbbulkhead.transaction;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.RequestDeadline;
import dev.dbbulkhead.retry.RetryBackoff;
import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.retry.RetryableFailures;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One workload's retries: how many attempts its template (and so its {@code @DbBulkhead} methods) gives each
 * operation by itself, and the {@link RetryBudget} that every retrier of the workload draws on — the template's own
 * retries and those of Spring's {@code @Retryable} or spring-retry asking through {@link #tryRetry(Throwable)}.
 *
 * <p>A retry is granted only for a failure that is safe to retry ({@link RetryableFailures}: a serialization failure,
 * a deadlock, a refusal of the gate other than an interrupt; never an unknown commit outcome), only while the budget
 * grants it, and, for the template's own retries, after a jittered backoff that fits in what is left of the
 * deadline. Each attempt is a whole admitted operation: the permit is given back before the backoff, so a retry
 * waits for its place like any caller.
 *
 * <p>The budget counts the operations' first attempts only once something retries: from the start when the workload
 * retries by itself ({@code maxAttempts > 1}), else from the first time {@link #tryRetry} is asked. A workload that
 * never retries pays a field read per operation for the feature. Thread-safe; shared by the workload's templates.
 */
public final class WorkloadRetries {

    /** The retry a thread was granted by {@link #tryRetry}: its next operation is that retry, not a first attempt. */
    private static final ThreadLocal<WorkloadRetries> GRANTED_RETRY = new ThreadLocal<>();

    private final int maxAttempts;
    private final RetryBudget budget;
    private final RetryBackoff backoff;
    private final LongAdder granted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    /** Whether first attempts are counted: always when the workload retries by itself, else once it was asked. */
    private volatile boolean counting;

    /**
     * @param maxAttempts the attempts the template gives each operation by itself, the first included; 1 for none
     * @param budget      what every retry of the workload draws on
     * @throws IllegalArgumentException for fewer than 1 attempt
     */
    public WorkloadRetries(int maxAttempts, RetryBudget budget) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.budget = Objects.requireNonNull(budget, "budget");
        this.backoff = new RetryBackoff(budget.config());
        this.counting = maxAttempts > 1;
    }

    /** The attempts the template gives each operation by itself, the first included; 1 when it does not retry. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The budget every retry of the workload draws on. */
    public RetryBudget budget() {
        return budget;
    }

    /** Retries the budget granted so far, the template's own and those asked through {@link #tryRetry}. */
    public long granted() {
        return granted.sum();
    }

    /** Retries of safe failures that the budget refused so far. */
    public long refused() {
        return refused.sum();
    }

    /**
     * For a retrier other than the template (Spring's {@code @Retryable}, spring-retry): whether the operation that
     * just failed with {@code failure} may be tried again. Never blocks.
     *
     * @return {@code true} when the failure is safe to retry and the budget grants the retry, which is then counted
     *         against it, and the calling thread's next operation of this workload counts as that retry rather than
     *         as a first attempt (the retrier must run it on this thread, as both do); {@code false} otherwise, and
     *         then nothing is consumed
     */
    public boolean tryRetry(Throwable failure) {
        counting = true;
        if (!safeToRetry(failure) || !withdraw()) {
            return false;
        }
        GRANTED_RETRY.set(this);
        return true;
    }

    /** Counts one operation before it is tried: a first attempt, unless it is the retry this thread was granted. */
    void beforeOperation() {
        if (!counting) {
            return;
        }
        if (GRANTED_RETRY.get() == this) {
            GRANTED_RETRY.remove();
            return;
        }
        budget.recordFirstAttempt();
    }

    /** Whether the template retries by itself: more than one attempt. */
    public boolean retriesByItself() {
        return maxAttempts > 1;
    }

    /**
     * Runs {@code attempt} until it returns, or fails in a way not to retry, or the attempts, the budget or the time
     * run out: then its last failure is thrown. An interrupt during the backoff ends the retries with that failure,
     * the interrupt status set. The caller has counted the operation ({@link #beforeOperation()}).
     */
    <T> T run(Supplier<T> attempt) {
        for (int retry = 0; ; retry++) {
            try {
                return attempt.get();
            } catch (RuntimeException failure) {
                if (!mayRetry(retry, failure)) {
                    throw failure;
                }
                long left = RequestDeadline.current().map(RequestDeadline::remainingNanos).orElse(Long.MAX_VALUE);
                long pause = backoff.nanosUntilNext(retry, left);
                if (pause == RetryBackoff.NO_TIME_LEFT || !withdraw()) {
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

    private boolean withdraw() {
        if (budget.tryWithdraw()) {
            granted.increment();
            return true;
        }
        refused.increment();
        return false;
    }

    private boolean mayRetry(int retry, RuntimeException failure) {
        return retry + 1 < maxAttempts && safeToRetry(failure);
    }

    private static boolean safeToRetry(Throwable failure) {
        if (Thread.currentThread().isInterrupted()) {
            return false;
        }
        // A caller interrupted while it waited asked to stop, not to be tried again.
        if (failure instanceof BulkheadRejectedException rejected && rejected.reason() == RejectionReason.INTERRUPTED) {
            return false;
        }
        return RetryableFailures.isRetryable(failure);
    }

    @Override
    public String toString() {
        return "WorkloadRetries[maxAttempts=" + maxAttempts + ", " + budget.config() + "]";
    }
}
