package dev.dbbulkhead.gate;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;

/**
 * Told of every admission decision of a gate, on the deciding thread. Implementations must be cheap and
 * must not throw: they run on the admission path, and a permit is already held when they are called.
 */
public interface GateListener {

    /** A listener that ignores everything; a gate with it skips taking time stamps. */
    GateListener NONE = new GateListener() {
    };

    /** An operation got its execution permit after waiting {@code queueWaitNanos} for it. */
    default void onAdmitted(String workload, long queueWaitNanos) {
    }

    /**
     * An operation was refused. {@code queueWaitNanos} is zero for {@link RejectionReason#ADMISSION_FULL}
     * (it never waited) and the time spent waiting otherwise.
     */
    default void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
    }

    /**
     * An operation gave both permits back after holding its execution permit for {@code heldNanos}, ending with
     * the outcome recorded on its permit ({@link ExecutionOutcome#FAILED} when none was recorded).
     */
    default void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
    }
}
