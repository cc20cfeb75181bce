package dev.dbbulkhead.benchmarks.load;

import io.github.resilience4j.bulkhead.BulkheadFullException;
import java.sql.SQLTransientConnectionException;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/** How one call ended, as its caller saw it. */
public enum Outcome {
    /** The transaction committed and the connection went back to the pool. */
    COMMITTED,
    /** The guard refused the call before it asked the pool. */
    REJECTED,
    /** The pool had no connection within its connection timeout. */
    POOL_TIMEOUT,
    /** Anything else went wrong. */
    FAILED,
    /** Still inside when the run ended: interrupted by the harness, or never returned. */
    ABANDONED;

    /** Whether the call was refused before it ran: by the guard, or by the pool's timeout. */
    public boolean isRefusal() {
        return this == REJECTED || this == POOL_TIMEOUT;
    }

    /** The refused calls among {@code counts}: {@link #REJECTED} and {@link #POOL_TIMEOUT}. */
    public static int refused(Map<Outcome, Integer> counts) {
        return counts.getOrDefault(REJECTED, 0) + counts.getOrDefault(POOL_TIMEOUT, 0);
    }

    /** Classifies what a call threw. Every guard's refusal is a {@link RejectedExecutionException}, or Resilience4j's. */
    public static Outcome of(Throwable thrown) {
        if (thrown instanceof RejectedExecutionException || thrown instanceof BulkheadFullException) {
            return REJECTED;
        }
        if (thrown instanceof SQLTransientConnectionException) {
            return POOL_TIMEOUT;
        }
        return FAILED;
    }
}
