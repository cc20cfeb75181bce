package dev.dbbulkhead.gate;

import dev.dbbulkhead.ExecutionOutcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * Both permits of one admitted operation: an admission permit and an execution permit of one gate.
 *
 * <p>A permit is released exactly once, by the thread that acquired it — use it in try-with-resources
 * around the whole operation, connection cleanup included. Closing it again does nothing. Closing it from
 * another thread is refused with {@link IllegalStateException} and leaves it held: a caller that gave up
 * waiting must never free the permits of work that may still be running.
 */
public final class Permit implements AutoCloseable {

    /** {@link #remainingNanos()} of a permit acquired without a budget. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    /**
     * {@link #released} is written only by the owner thread, which alone reads it to decide, so the write needs no
     * fence; other threads read it with acquire semantics for {@link #isReleased()}, and see it once the write has
     * been released. A volatile write would cost a full fence on every operation.
     */
    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Permit.class, "released", boolean.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    private final AdmissionGate gate;
    private final HeldGate held;
    private final Thread owner;
    private final long admittedAtNanos;
    private final long deadlineNanos;
    private final boolean hasDeadline;
    private boolean released;
    private ExecutionOutcome outcome = ExecutionOutcome.FAILED;

    Permit(AdmissionGate gate, HeldGate held, long admittedAtNanos, long deadlineNanos, boolean hasDeadline) {
        this.gate = gate;
        this.held = held;
        this.owner = Thread.currentThread();
        this.admittedAtNanos = admittedAtNanos;
        this.deadlineNanos = deadlineNanos;
        this.hasDeadline = hasDeadline;
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
        return gate.workload();
    }

    /**
     * Records how the operation ended, for the gate's listener; the last value recorded before {@link #close()}
     * counts. Without one, the operation counts as {@link ExecutionOutcome#FAILED}.
     */
    public void recordOutcome(ExecutionOutcome outcome) {
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }

    /** Whether both permits have been given back. */
    public boolean isReleased() {
        return (boolean) RELEASED.getAcquire(this);
    }

    /**
     * Gives both permits back to the gate, the first time it is called; later calls do nothing.
     *
     * @throws IllegalStateException when called from a thread other than the one that acquired the permit;
     *                               the permit then stays held
     */
    @Override
    public void close() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("Permit of bulkhead '" + gate.workload() + "' acquired by " + owner
                    + " may only be released by that thread, not by " + Thread.currentThread());
        }
        // Only the owner gets here, so this check-then-set cannot race.
        if (!released) {
            RELEASED.setRelease(this, true);
            gate.release(held, admittedAtNanos, outcome);
        }
    }

    @Override
    public String toString() {
        return "Permit[" + gate.workload() + (released ? ", released]" : ", held by " + owner + "]");
    }
}
