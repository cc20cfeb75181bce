package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * What one gate tells its {@link GateListener}, and the refusals it throws. A gate nobody listens to
 * ({@link GateListener#NONE}) is not timed: nothing on its paths takes a time stamp for the listener.
 */
final class GateReports {

    private final String workload;
    private final GateListener listener;
    private final boolean timed;
    private final boolean captureStackTrace;
    /** Refusals of later operations of a unit of work admitted once: what in-progress-first is there to prevent. */
    private final LongAdder refusedInProgress = new LongAdder();

    GateReports(String workload, GateListener listener, boolean captureStackTrace) {
        this.workload = workload;
        this.listener = listener;
        this.timed = listener != GateListener.NONE;
        this.captureStackTrace = captureStackTrace;
    }

    /** Whether somebody listens: only then are waits and holds timed for the listener. */
    boolean timed() {
        return timed;
    }

    void waitStarted() {
        if (timed) {
            listener.onWaitStarted(workload);
        }
    }

    void admitted(long queueWaitNanos) {
        listener.onAdmitted(workload, queueWaitNanos);
    }

    void shed(long queueWaitNanos) {
        if (timed) {
            listener.onShed(workload, queueWaitNanos);
        }
    }

    /** Tells the listener of a refusal, with nothing held by the refused caller, and builds the exception. */
    BulkheadRejectedException rejected(RejectionReason reason, long queueWaitNanos) {
        if (timed) {
            listener.onRejected(workload, reason, queueWaitNanos);
        }
        // Called on the refused thread: its record is the refused operation's.
        ThreadRecord refused = ThreadRecord.current();
        if (refused.unitInProgress()) {
            refusedInProgress.increment();
        }
        int committedBefore = Math.max(0, refused.requestCommits());
        return new BulkheadRejectedException(workload, reason, captureStackTrace, committedBefore);
    }

    /** The refusals so far of later operations of units of work admitted once. */
    long refusedInProgress() {
        return refusedInProgress.sum();
    }

    /**
     * Tells the listener how an operation ended, once its places are back; {@code transactionNanos} is negative when
     * the transaction was not timed: it never began, or its end was not reported.
     */
    void released(ExecutionOutcome outcome, long transactionNanos, @Nullable Throwable transactionFailure,
                  long heldNanos) {
        if (transactionNanos >= 0) {
            listener.onTransactionEnded(workload, outcome, transactionNanos, transactionFailure);
        }
        listener.onReleased(workload, outcome, heldNanos);
    }
}
