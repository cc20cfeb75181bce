package dev.dbbulkhead.limit;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateListener;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The mechanism of an adaptive limit: listens to a gate's releases, hands each hold time to its policy
 * ({@link GradientLimit}), and requests the gate's B from the gate's {@link ConcurrencyCeiling}, without blocking,
 * whenever the policy's limit changes. Q stays as configured.
 *
 * <p>Only releases feed it — never rejections — and not every release: an operation {@linkplain
 * ExecutionOutcome#ROLLED_BACK rolled back} is left out, because its work's own exception is the common cause and the
 * gate cannot tell it from the database's; the time until a commit, a failed connection request or a lost commit
 * all count.
 *
 * <p>Built before its gate (a gate's listener is fixed when the gate is built), it steers the gate from
 * {@link #drive}, called once, when the gate is built. Thread-safe: samples are handed to the policy one at a time
 * under a lock, which only releases of this workload ever take, and for microseconds.
 */
public final class AdaptiveLimit implements GateListener {

    /** A burst of changes ends when the learnt limit has not moved for this long. */
    public static final long BURST_QUIET_MILLIS = 2_000;
    private static final long BURST_QUIET_NANOS = BURST_QUIET_MILLIS * 1_000_000L;

    private static final IntConsumer NOT_DRIVING = ignored -> {
    };

    private final AdaptiveLimitConfig config;
    private final GradientLimit policy;
    private final Consumer<LimitChange> changes;
    private final LongSupplier nanoClock;
    /** The gate's B when it was built. */
    private final int startConcurrent;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile IntConsumer resizeConcurrent = NOT_DRIVING;
    private volatile LimitSnapshot snapshot;
    /** The last B handed to the gate; guarded by the lock. */
    private int applied;
    /** The learnt limit after the last window; guarded by the lock. */
    private int lastLearnt;
    /** The learnt limit before the burst of changes in progress, or -1 for none; guarded by the lock. */
    private int burstFrom = -1;
    private long burstStartedAt;
    private long lastChangeAt;

    /**
     * @param config          the floor, the ceiling and the probe interval
     * @param startConcurrent the gate's B when it is built, within the bounds
     * @param changes         told once per burst of changes of the learnt limit, when it has been quiet for
     *                        {@value #BURST_QUIET_MILLIS} ms, outside the lock; must not throw
     */
    public AdaptiveLimit(AdaptiveLimitConfig config, int startConcurrent, Consumer<LimitChange> changes) {
        this(config, startConcurrent, changes, System::nanoTime);
    }

    /** As {@link #AdaptiveLimit(AdaptiveLimitConfig, int, Consumer)}, on the given monotonic clock. */
    AdaptiveLimit(AdaptiveLimitConfig config, int startConcurrent, Consumer<LimitChange> changes,
                  LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        this.policy = new GradientLimit(config, startConcurrent);
        this.changes = Objects.requireNonNull(changes, "changes");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.startConcurrent = startConcurrent;
        this.applied = startConcurrent;
        this.lastLearnt = startConcurrent;
        this.snapshot = policy.snapshot();
    }

    /**
     * Steers {@code gate}, whose listener this is, from now on, through its ceiling: a cap on it (the database's
     * limit) then holds whatever the limit learns.
     *
     * @throws IllegalStateException when the limit already steers
     */
    public void drive(AdmissionGate gate) {
        ConcurrencyCeiling.of(gate).learnFrom(this);
    }

    /**
     * Hands every later change of the limit to {@code resizeConcurrent}, starting with the limit in force now
     * when it differs from the starting one. Once only: a limit that changed what it steers could leave B where the
     * other had put it.
     *
     * @throws IllegalStateException when the limit already steers
     */
    public void drive(IntConsumer resizeConcurrent) {
        Objects.requireNonNull(resizeConcurrent, "resizeConcurrent");
        lock.lock();
        try {
            if (this.resizeConcurrent != NOT_DRIVING) {
                throw new IllegalStateException("the adaptive limit already steers its gate");
            }
            this.resizeConcurrent = resizeConcurrent;
            if (applied != startConcurrent) {
                resizeConcurrent.accept(applied);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
        if (outcome == ExecutionOutcome.ROLLED_BACK) {
            return;
        }
        long now = nanoClock.getAsLong();
        LimitChange change = null;
        lock.lock();
        try {
            if (!policy.onSample(now, heldNanos)) {
                return;
            }
            LimitSnapshot state = policy.snapshot();
            snapshot = state;
            if (state.concurrent() != applied) {
                applied = state.concurrent();
                resizeConcurrent.accept(applied);
            }
            change = endOfBurst(workload, state, now);
        } finally {
            lock.unlock();
        }
        if (change != null) {
            changes.accept(change);
        }
    }

    /**
     * Follows bursts of changes of the learnt limit — changes less than {@value #BURST_QUIET_MILLIS} ms apart —
     * and returns the burst that this decision ended, if any.
     */
    private @Nullable LimitChange endOfBurst(String workload, LimitSnapshot state, long now) {
        if (state.learnt() != lastLearnt) {
            if (burstFrom < 0) {
                burstFrom = lastLearnt;
                burstStartedAt = now;
            }
            lastLearnt = state.learnt();
            lastChangeAt = now;
            return null;
        }
        if (burstFrom < 0 || now - lastChangeAt < BURST_QUIET_NANOS) {
            return null;
        }
        int from = burstFrom;
        burstFrom = -1;
        return from == state.learnt() ? null : new LimitChange(workload, from, state.learnt(), now - burstStartedAt,
                state);
    }

    /** The floor, the ceiling and the probe interval. */
    public AdaptiveLimitConfig config() {
        return config;
    }

    /** What the limit knows now; for observation. */
    public LimitSnapshot snapshot() {
        return snapshot;
    }
}
