package dev.dbbulkhead.retry;

/** Whether a failed operation may be tried again, and for which reason: see {@link RetryableFailures}. */
public enum RetryDecision {

    /** SQLState 40001, serialization_failure: the database rolled the transaction back; running it again is safe. */
    SERIALIZATION_FAILURE(true),

    /** SQLState 40P01, deadlock_detected: the database broke a cycle of lock waits by rolling this transaction back. */
    DEADLOCK(true),

    /** The gate refused the operation before it touched the pool (any {@code RejectionReason}): nothing ran. */
    REJECTED_BY_GATE(true),

    /** The commit failed without a verdict: the write may have happened, so it is never retried blindly. */
    OUTCOME_UNKNOWN(false),

    /** Anything else: not known to be safe to run again. */
    NOT_RETRYABLE(false);

    private final boolean retryable;

    RetryDecision(boolean retryable) {
        this.retryable = retryable;
    }

    /** Whether the operation may be tried again (within the retry budget). */
    public boolean retryable() {
        return retryable;
    }
}
