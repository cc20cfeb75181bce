package dev.dbbulkhead.gate;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Told of every admission decision of a gate, on the deciding thread. Implementations must be cheap and
 * must not throw: they run on the admission path. {@link #onWaitStarted} and {@link #onAdmitted} run while the
 * operation holds its places (they are its own: it waits or runs with them); {@link #onRejected} and
 * {@link #onReleased} run only once the places have been given back, so a slow listener keeps none of them from
 * other callers.
 *
 * <p>One operation's calls all come on its own thread — a permit is released only by the thread that acquired
 * it — so state kept between {@link #onWaitStarted}, {@link #onAdmitted} and {@link #onReleased} may live in a
 * {@link ThreadLocal}: gates are never nested, so a thread has at most one operation in flight. The one exception is
 * a permit whose owner thread ended without closing it ({@link Permit}): its {@code onReleased} comes on the thread
 * that gives it back.
 */
public interface GateListener {

    /**
     * The {@code queueWaitNanos} of {@link #onRejected} for an operation refused before it was admitted: a full gate,
     * or a thread interrupted on entry. Negative, so never the length of a wait.
     */
    long NEVER_ADMITTED = -1L;

    /** A listener that ignores everything; a gate with it skips taking time stamps. */
    GateListener NONE = new GateListener() {
    };

    /**
     * An operation took an admission permit and now waits for an execution permit: it found all B running, or others
     * waiting before it (it may still be served at once). Followed on the same thread by exactly one
     * {@link #onAdmitted} or {@link #onRejected} ({@code QUEUE_TIMEOUT} or {@code INTERRUPTED}). Not told for an
     * operation that found an execution permit free as it was admitted — its {@link #onAdmitted} comes alone — nor
     * before an {@code ADMISSION_FULL} rejection or the {@code INTERRUPTED} rejection of a thread interrupted before it
     * entered: nothing waited. Most operations of a gate that is not overloaded never wait, and this is where a
     * listener pays for the ones that do (a wait's span, say) and only for them.
     */
    default void onWaitStarted(String workload) {
    }

    /** An operation got its execution permit after waiting {@code queueWaitNanos} for it. */
    default void onAdmitted(String workload, long queueWaitNanos) {
    }

    /**
     * An operation was refused. {@code queueWaitNanos} is {@link #NEVER_ADMITTED} when it was refused before it was
     * admitted ({@link RejectionReason#ADMISSION_FULL}, or {@link RejectionReason#INTERRUPTED} on entry: it never
     * waited) and the time spent waiting otherwise.
     */
    default void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
    }

    /**
     * A waiter was refused by the {@linkplain QueueDiscipline#CODEL CoDel discipline} before its queue wait ran
     * out, after waiting {@code queueWaitNanos}, because the queue stood. Told on the refused operation's thread right
     * before its {@link #onRejected} with {@link RejectionReason#QUEUE_TIMEOUT}: sheds are a part of the timeouts.
     */
    default void onShed(String workload, long queueWaitNanos) {
    }

    /**
     * The transaction of an operation ended, {@code transactionNanos} after it began on the connection the
     * operation got: from its begin to the end of its commit or rollback — its SQL, the lock waits inside it, the
     * work's own code between statements, the commit — ending with {@code outcome}. {@code failure} is the exception
     * that ended it (the work's, the failed commit's, a failed setup's), or {@code null} when none did. Told on the
     * operation's thread right before its {@link #onReleased}, once the places are given back, for an operation whose
     * transaction began and ended as reported by the layer that ran it ({@link Permit#transactionBegan()}): not for
     * one that got no connection. What {@link #onReleased}'s {@code heldNanos} counts beyond it is the wait for the
     * connection, the begin, and handing the connection back where the commit does not include it (the commit of
     * Spring's transaction managers does).
     */
    default void onTransactionEnded(String workload, ExecutionOutcome outcome, long transactionNanos,
                                    @Nullable Throwable failure) {
    }

    /**
     * An operation gave both permits back after holding its execution permit for {@code heldNanos}, ending with
     * the outcome recorded on its permit ({@link ExecutionOutcome#FAILED} when none was recorded).
     */
    default void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
    }

    /**
     * One listener that tells each of {@code listeners}, in order, of every decision: how a gate, whose listener is
     * fixed when it is built, reports to several observers at once.
     *
     * @return {@link #NONE} for no listeners, the only one for one, else one that calls them all
     */
    static GateListener composite(List<? extends GateListener> listeners) {
        List<GateListener> all = listeners.stream().filter(listener -> listener != NONE)
                .map(GateListener.class::cast).toList();
        return switch (all.size()) {
            case 0 -> NONE;
            case 1 -> all.get(0);
            default -> new CompositeGateListener(all.toArray(GateListener[]::new));
        };
    }
}
