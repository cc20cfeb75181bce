package dev.dbbulkhead.limit;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateRanges;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The one owner of a gate's B: every writer of B goes through it, and none sets the gate's B itself. What
 * <em>wants</em> a B requests it — the configuration it starts from, an operator's resize, an adaptive limit — and
 * what <em>caps</em> it limits it — the instance's part of a fleet share, or the database's limit; the gate runs with
 * the smaller of the two, so a cap and a request never undo each other, whichever comes last. A gate has one
 * ({@link #of}), whoever asks first; one cap at a time, since a workload is capped by the fleet or by the database,
 * never by both. Thread-safe; its lock is held for one resize of the gate, which never blocks.
 */
public final class ConcurrencyCeiling {

    /** No cap: the requested B applies as it is. */
    public static final int NONE = Integer.MAX_VALUE;

    private final AdmissionGate gate;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean learnt;
    private int requested;
    private int ceiling = NONE;

    private ConcurrencyCeiling(AdmissionGate gate) {
        this.gate = gate;
        // Nothing sets B but the owner, so the gate's B is still the one it was built with.
        this.requested = gate.config().maxConcurrent();
    }

    /** The owner of {@code gate}'s B: made on the first call, starting from the B the gate has and no cap. */
    public static ConcurrencyCeiling of(AdmissionGate gate) {
        return gate.concurrencyOwner(ConcurrencyCeiling.class, ConcurrencyCeiling::new);
    }

    /**
     * Sets the B wanted, which the gate gets as far as the ceiling allows.
     *
     * @throws IllegalArgumentException for a B below 1, or one whose B + Q would pass {@link Integer#MAX_VALUE}
     */
    public void request(int maxConcurrent) {
        resize(maxConcurrent, null);
    }

    /**
     * Sets the B wanted and/or Q in one step, without blocking; a limit left out ({@code null}) keeps the value it
     * has at that moment, not one read before. The gate gets B as far as the ceiling allows, and Q as it is.
     *
     * @throws IllegalArgumentException for a B below 1, a Q below 0, or a B + Q past {@link Integer#MAX_VALUE}; the
     *                                  limits stay as they were
     */
    public void resize(@Nullable Integer maxConcurrent, @Nullable Integer maxQueued) {
        lock.lock();
        try {
            if (maxConcurrent == null) {
                if (maxQueued != null) {
                    gate.resizeQueued(maxQueued);
                }
                return;
            }
            GateRanges.requireMaxConcurrent(maxConcurrent);
            int applied = Math.min(maxConcurrent, ceiling);
            if (maxQueued == null) {
                gate.resizeConcurrent(applied);
            } else {
                gate.resize(applied, maxQueued);
            }
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

    /** Whether an adaptive limit requests B: it is learnt, and an operator's request would only be undone. */
    public boolean learnt() {
        return learnt;
    }

    /** The workload of the gate. */
    public String workload() {
        return gate.workload();
    }

    /** Hands the requests of B to {@code limit}, which learns it, once, when the limit starts steering. */
    void learnFrom(AdaptiveLimit limit) {
        limit.drive(this::request);
        learnt = true;
    }
}
