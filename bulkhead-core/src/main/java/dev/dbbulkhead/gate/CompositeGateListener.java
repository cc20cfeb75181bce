package dev.dbbulkhead.gate;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import org.jspecify.annotations.Nullable;

/** Tells several listeners, in order; see {@link GateListener#composite}. An array: this runs on every admission. */
final class CompositeGateListener implements GateListener {

    private final GateListener[] listeners;

    CompositeGateListener(GateListener[] listeners) {
        this.listeners = listeners;
    }

    @Override
    public void onWaitStarted(String workload) {
        for (GateListener listener : listeners) {
            listener.onWaitStarted(workload);
        }
    }

    @Override
    public void onAdmitted(String workload, long queueWaitNanos) {
        for (GateListener listener : listeners) {
            listener.onAdmitted(workload, queueWaitNanos);
        }
    }

    @Override
    public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
        for (GateListener listener : listeners) {
            listener.onRejected(workload, reason, queueWaitNanos);
        }
    }

    @Override
    public void onShed(String workload, long queueWaitNanos) {
        for (GateListener listener : listeners) {
            listener.onShed(workload, queueWaitNanos);
        }
    }

    @Override
    public void onTransactionEnded(String workload, ExecutionOutcome outcome, long transactionNanos,
                                   @Nullable Throwable failure) {
        for (GateListener listener : listeners) {
            listener.onTransactionEnded(workload, outcome, transactionNanos, failure);
        }
    }

    @Override
    public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
        for (GateListener listener : listeners) {
            listener.onReleased(workload, outcome, heldNanos);
        }
    }
}
