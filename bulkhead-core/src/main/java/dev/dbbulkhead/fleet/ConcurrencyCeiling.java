package dev.dbbulkhead.fleet;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateRanges;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The seam between what <em>wants</em> a workload's B (its configuration, an operator's resize, an adaptive limit)
 * and what <em>caps</em> it (the workload's part of the fleet share): the gate runs with the smaller of the two.
 * Every setter of B goes through {@link #request(int)} instead of resizing the gate itself, so a cap and a request
 * never undo each other, whichever comes last. Thread-safe.
 */
public final class ConcurrencyCeiling {

    /** No cap: the requested B applies as it is. */
    public static final int NONE = Integer.MAX_VALUE;

    private final AdmissionGate gate;
    private final ReentrantLock lock = new ReentrantLock();
    private int requested;
    private int ceiling = NONE;

    /** Caps {@code gate}, starting from the B it has now as the requested one and no cap. */
    public ConcurrencyCeiling(AdmissionGate gate) {
        this.gate = Objects.requireNonNull(gate, "gate");
        this.requested = gate.config().maxConcurrent();
    }

    /**
     * Sets the B wanted, which the gate gets as far as the ceiling allows.
     *
     * @throws IllegalArgumentException for a B below 1, or one whose B + Q would pass {@link Integer#MAX_VALUE}
     */
    public void request(int maxConcurrent) {
        GateRanges.requireMaxConcurrent(maxConcurrent);
        lock.lock();
        try {
            gate.resizeConcurrent(Math.min(maxConcurrent, ceiling));
            requested = maxConcurrent;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Caps B at {@code ceiling} ({@link #NONE} lifts the cap). Lowering it takes effect for new admissions at once;
     * operations already running finish.
     *
     * @throws IllegalArgumentException for a ceiling below 1
     */
    public void limitTo(int ceiling) {
        GateRanges.requireMaxConcurrent(ceiling);
        lock.lock();
        try {
            gate.resizeConcurrent(Math.min(requested, ceiling));
            this.ceiling = ceiling;
        } finally {
            lock.unlock();
        }
    }

    /** The B wanted, before the cap. */
    public int requested() {
        lock.lock();
        try {
            return requested;
        } finally {
            lock.unlock();
        }
    }

    /** The cap, or {@link #NONE}. */
    public int ceiling() {
        lock.lock();
        try {
            return ceiling;
        } finally {
            lock.unlock();
        }
    }

    /** The workload of the capped gate. */
    public String workload() {
        return gate.workload();
    }
}
