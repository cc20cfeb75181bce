package dev.dbbulkhead.benchmarks.load;

import dev.dbbulkhead.BulkheadRejectedException;

/** Why a call was refused, as a short name for tables: the guard's own reason where it gives one. */
public final class RefusalReason {

    /** A refusal of the pool: no connection within its connection timeout. */
    public static final String POOL_TIMEOUT = "pool timeout";

    private RefusalReason() {
    }

    /**
     * The reason of a call that ended {@link Outcome#REJECTED} or {@link Outcome#POOL_TIMEOUT}: db-bulkhead's
     * {@code RejectionReason} ({@code ADMISSION_FULL}, {@code QUEUE_TIMEOUT}), the pool's timeout, or else the
     * refusing exception's class (Resilience4j and Spring have one kind of refusal each).
     */
    public static String of(Throwable refusal) {
        if (refusal instanceof BulkheadRejectedException rejected) {
            return rejected.reason().name();
        }
        if (Outcome.of(refusal) == Outcome.POOL_TIMEOUT) {
            return POOL_TIMEOUT;
        }
        return refusal.getClass().getSimpleName();
    }
}
