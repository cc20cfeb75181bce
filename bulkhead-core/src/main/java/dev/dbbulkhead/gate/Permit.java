package dev.dbbulkhead.gate;

import dev.dbbulkhead.ExecutionOutcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Both permits of one admitted operation: an admission permit and an execution permit of one gate.
 *
 * <p>A permit is released exactly once, by the thread that acquired it — use it in try-with-resources
 * around the whole operation, connection cleanup included. Closing it again does nothing.
 *
 * <p>Closing it from another thread (a {@code CompletableFuture} continuation, a callback) is a misuse, refused
 * with {@link IllegalStateException}, and releases nothing at that moment: the owner thread may still be running
 * work under the permit, or be about to close it itself, and a caller that gave up waiting must never free the
 * permits of work that may still be running. The misuse never strands a place or locks a thread out, though: the
 * permit counts as handed over, and is given back by whichever comes first —
 * <ul>
 *   <li>the owner thread closing it, as it should;</li>
 *   <li>the owner thread entering any bulkhead again: instead of being refused as a reentry, it gives this permit
 *       back and is admitted (closing the permit elsewhere said that its operation had ended);</li>
 *   <li>the owner thread having ended: at once if it had ended when the permit was closed, otherwise as soon as an
 *       admission to the gate finds no room.</li>
 * </ul>
 * Releases other than the owner's happen only once the owner has ended, so a permit is never released twice. (Letting
 * another thread release at once would need an atomic step on every release by the owner, to settle a race with
 * it: a cost on the path every operation takes, for a misuse.)
 */
public final class Permit implements AutoCloseable {

    /** {@link #remainingNanos()} of a permit acquired without a budget. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    /** {@link #transactionNanos} of an operation whose transaction was not timed: none began, or nobody listens. */
    private static final long NOT_TIMED = -1L;

    /**
     * {@link #released} is written by the owner thread, which alone reads it to decide while it is alive, so the write
     * needs no fence; other threads read it with acquire semantics for {@link #isReleased()}, and set it with a
     * compare-and-set only once the owner has ended. A volatile write would cost a full fence on every operation.
     */
    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Permit.class, "released", boolean.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    /** Where the permit goes back to: the release side of its gate. */
    private final GateRelease returnTo;
    private final ThreadRecord held;
    private final Thread owner;
    private final long admittedAtNanos;
    private final long deadlineNanos;
    private final boolean hasDeadline;
    private boolean released;
    private ExecutionOutcome outcome = ExecutionOutcome.FAILED;
    /** Set when the operation only read: its commit is no work a retry of the request would do twice. */
    private boolean onlyRead;
    /** Set while a timed transaction is open; written and read by the owner thread only, as the outcome is. */
    private boolean transactionOpen;
    private long transactionBeganAtNanos;
    private long transactionNanos = NOT_TIMED;
    private @Nullable Throwable transactionFailure;
    /**
     * Which place of a lending pool's ledger the permit holds ({@link PoolPlaces#OWN_PLACE}, …). Left unwritten by
     * the fast path's constructor, so that a gate outside every pool does no work for it.
     */
    private byte pooled;
    /**
     * The flow its operation is counted in as running, named when it is released; {@code null} where flows count
     * nothing running (every gate without a cap per key). Left unwritten by the fast path's constructor too.
     */
    private @Nullable String countedFlow;

    Permit(GateRelease returnTo, ThreadRecord held, long admittedAtNanos, long deadlineNanos, boolean hasDeadline) {
        this.returnTo = returnTo;
        this.held = held;
        this.owner = Thread.currentThread();
        this.admittedAtNanos = admittedAtNanos;
        this.deadlineNanos = deadlineNanos;
        this.hasDeadline = hasDeadline;
    }

    /** A permit of the slow path: holding the place {@code pooled} of a pool, counted in {@code countedFlow}. */
    Permit(GateRelease returnTo, ThreadRecord held, long admittedAtNanos, long deadlineNanos, boolean hasDeadline,
           byte pooled, @Nullable String countedFlow) {
        this(returnTo, held, admittedAtNanos, deadlineNanos, hasDeadline);
        this.pooled = pooled;
        this.countedFlow = countedFlow;
    }

    /**
     * What is left of the budget the permit was acquired within ({@link AdmissionGate#acquireWithin}); zero
     * or negative once it is spent; {@link #NO_DEADLINE} for a permit acquired without a budget.
     */
    public long remainingNanos() {
        return hasDeadline ? deadlineNanos - System.nanoTime() : NO_DEADLINE;
    }

    /** The workload of the gate that issued this permit. */
    public String workload() {
        return returnTo.workload();
    }

    /**
     * Records how the operation ended, for the gate's listener; the last value recorded before {@link #close()}
     * counts. Without one, the operation counts as {@link ExecutionOutcome#FAILED}.
     */
    public void recordOutcome(ExecutionOutcome outcome) {
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }

    /**
     * Records that the operation only read — a read-only transaction, a connection used read-only — so that its
     * commit is not counted among the request's committed operations ({@link RequestCommits}): a refusal later in the
     * request says it is safe to retry as far as this operation goes. Written and read by the owner thread only.
     */
    public void recordOnlyRead() {
        onlyRead = true;
    }

    /**
     * Records that the operation's transaction has just begun on the connection it got, for the gate's listener
     * ({@link GateListener#onTransactionEnded}): called by what runs the transaction, once the connection is had. A
     * gate nobody listens to takes no time stamp.
     */
    public void transactionBegan() {
        if (returnTo.isListenedTo()) {
            transactionBeganAtNanos = System.nanoTime();
            transactionOpen = true;
        }
    }

    /**
     * Records that the transaction begun has ended: its commit or rollback has returned. Does nothing without a
     * {@link #transactionBegan()} before it, or when called again.
     *
     * @param failure the exception that ended the transaction — the work's, the commit's, a failed setup's — or
     *                {@code null} when none did (a commit, or the rollback of a transaction marked rollback-only)
     */
    public void transactionEnded(@Nullable Throwable failure) {
        if (transactionOpen) {
            transactionOpen = false;
            transactionNanos = System.nanoTime() - transactionBeganAtNanos;
            transactionFailure = failure;
        }
    }

    /** Whether both permits have been given back. */
    public boolean isReleased() {
        return (boolean) RELEASED.getAcquire(this);
    }

    /**
     * Gives both permits back to the gate, the first time it is called on the owner thread; later calls do nothing.
     * When a waiter is woken for the freed place, a platform thread returns once that waiter runs: it yields its
     * processor meanwhile (a bounded number of times, never parking for more than 10 µs at once), so that the place
     * is not left empty while the waiter waits to be scheduled. The interrupt flag is left as it was.
     *
     * @throws IllegalStateException when called from a thread other than the one that acquired the permit; the
     *                               permit is then given back as the class description says, never twice
     */
    @Override
    public void close() {
        if (Thread.currentThread() != owner) {
            throw closedByAnotherThread();
        }
        // Only the owner gets here while it is alive, so this check-then-set cannot race.
        if (!released) {
            RELEASED.setRelease(this, true);
            giveBack();
            // Counted once the permit is back, so that a refusal the request meets later knows work was written; an
            // operation that only read wrote nothing a retry would repeat.
            held.operationEnded(!onlyRead
                    && (outcome == ExecutionOutcome.COMMITTED || outcome == ExecutionOutcome.UNKNOWN));
        }
    }

    /** Hands the permit over to be given back without its owner's close, and reports the misuse. */
    private IllegalStateException closedByAnotherThread() {
        if (!isReleased()) {
            held.abandon(this);
            returnTo.abandon(this);
        }
        return new IllegalStateException("Permit of bulkhead '" + returnTo.workload() + "' acquired by " + owner
                + " may only be released by that thread, not by " + Thread.currentThread() + ": it is given back"
                + " when that thread closes it, enters a bulkhead again or has ended");
    }

    /**
     * Gives the permit back for an owner thread that has ended without closing it, once among all threads doing so.
     *
     * @return whether this call gave it back
     */
    boolean giveBackForEndedOwner() {
        // The owner's end happens-before isAlive() returns false, so its last writes here are seen, and it can
        // no longer race with this release.
        if (owner.isAlive() || !RELEASED.compareAndSet(this, false, true)) {
            return false;
        }
        giveBack();
        return true;
    }

    private void giveBack() {
        returnTo.release(this);
    }

    /** The record of the thread that holds this permit. */
    ThreadRecord holder() {
        return held;
    }

    /** When the permit was handed out: what its hold time is measured from. */
    long admittedAtNanos() {
        return admittedAtNanos;
    }

    boolean hasDeadline() {
        return hasDeadline;
    }

    /** Which place of a lending pool's ledger the permit holds. */
    @Nullable String countedFlow() {
        return countedFlow;
    }

    byte pooled() {
        return pooled;
    }

    /** Tells the gate's listener how the operation ended, once its places are back. */
    void reportReleased(GateReports reports, long heldNanos) {
        reports.released(outcome, transactionNanos, transactionFailure, heldNanos);
    }

    @Override
    public String toString() {
        return "Permit[" + returnTo.workload() + (released ? ", released]" : ", held by " + owner + "]");
    }
}
