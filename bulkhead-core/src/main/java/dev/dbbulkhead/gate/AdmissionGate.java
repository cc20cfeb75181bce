package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToIntFunction;

/**
 * The two-semaphore gate of one workload.
 *
 * <ul>
 *   <li><b>B execution permits</b> bound running operations. Fair semaphore, acquired with a timed wait
 *       of at most the queue wait, so waiters are served in arrival order.</li>
 *   <li><b>B + Q admission permits</b> bound everything inside the gate, waiters included. Acquired with an
 *       immediate try: none left means the operation is refused at once.</li>
 * </ul>
 *
 * <p>A gate is not reentrant: a thread holding a permit of any gate may not acquire another one. Thread-safe.
 */
public final class AdmissionGate {

    /**
     * The gate whose permit the current thread holds, of whichever gate: gates are never nested. Cleared by
     * setting null rather than by {@code remove()}: removing drops the thread's map entry, so the next admission
     * would allocate a new one, a weak reference the collector must process — on every admission. Holding the
     * gate rather than the permit lets the permit stay local to its try-with-resources block.
     */
    private static final ThreadLocal<AdmissionGate> HELD_GATE = new ThreadLocal<>();

    private final String workload;
    private final ResizableSemaphore execution;
    private final ResizableSemaphore admission;
    private final long queueWaitNanos;
    private final boolean captureStackTrace;
    private final GateListener listener;
    private final boolean timed;
    private final ReentrantLock resizeLock = new ReentrantLock();
    private volatile GateConfig config;
    /**
     * Odd while a resize adjusts the semaphores and the config (a sequence lock): the observation methods read
     * the config and a semaphore between two even, equal values, or else the config of one size would be paired
     * with the permits of another (a grow from 1 to 2 on an idle gate showed active() = -1).
     */
    private volatile long resizeSequence;

    /** A gate with the given limits that reports to nobody. */
    public AdmissionGate(String workload, GateConfig config) {
        this(workload, config, GateListener.NONE);
    }

    /**
     * @param workload the workload name; named in rejections, misuse reports and metrics
     * @param config   the limits
     * @param listener told of every admission decision
     */
    public AdmissionGate(String workload, GateConfig config, GateListener listener) {
        if (workload == null || workload.isBlank()) {
            throw new IllegalArgumentException("workload name must not be blank, was '" + workload + "'");
        }
        this.workload = workload;
        this.config = Objects.requireNonNull(config, "config");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.timed = listener != GateListener.NONE;
        this.execution = new ResizableSemaphore(config.maxConcurrent(), true);
        // Only ever tried without waiting, and an untimed try ignores fairness anyway.
        this.admission = new ResizableSemaphore(config.maxAdmitted(), false);
        this.queueWaitNanos = config.queueWait().toNanos();
        this.captureStackTrace = config.captureStackTrace();
    }

    /**
     * Admits one operation, waiting at most the queue wait for an execution permit.
     *
     * <p>Returns in exactly one of these ways:
     * <ul>
     *   <li>with a {@link Permit} holding both permits, to be closed by this thread when the operation
     *       (connection cleanup included) has ended;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#ADMISSION_FULL ADMISSION_FULL} at once
     *       when all B + Q admission permits are taken; nothing is held;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#QUEUE_TIMEOUT QUEUE_TIMEOUT} when no
     *       execution permit became free within the queue wait (a zero wait means none is waited for, but
     *       earlier waiters still go first); the admission permit has been given back;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#INTERRUPTED INTERRUPTED} when the thread
     *       is interrupted on entry or while waiting; the admission permit has been given back and the
     *       thread's interrupt status is set again;</li>
     *   <li>{@link BulkheadMisuseException} when this thread already holds a permit of any gate, or when an
     *       {@link AmbientTransactionProbe} reports an active transaction; nothing is held.</li>
     * </ul>
     *
     * @return the held permits
     */
    public Permit acquire() {
        takeAdmissionPermit();
        return awaitExecution(queueWaitNanos, 0L, false);
    }

    /**
     * Admits one operation within a budget that starts now and covers the whole operation: the wait for an
     * execution permit is at most the smaller of the queue wait and the budget, and the returned permit
     * {@linkplain Permit#remainingNanos() knows what is left} for the transaction.
     *
     * <p>Returns the same ways as {@link #acquire()}, and one more: {@link BulkheadRejectedException}
     * {@link RejectionReason#QUEUE_TIMEOUT QUEUE_TIMEOUT} when the budget was spent by the time an execution
     * permit was had; both permits have then been given back, and the operation never reaches the pool.
     *
     * @param budget the whole operation's budget, positive
     * @throws IllegalArgumentException for a zero, negative or unrepresentable budget
     */
    public Permit acquireWithin(Duration budget) {
        long budgetNanos = GateLimits.requireBudget(budget).toNanos();
        long entry = System.nanoTime();
        takeAdmissionPermit();
        return awaitExecution(Math.min(queueWaitNanos, budgetNanos), entry + budgetNanos, true);
    }

    /** Refuses misuse, then tries for an admission permit without waiting: none left is a refusal at once. */
    private void takeAdmissionPermit() {
        refuseMisuse();
        if (!admission.tryAcquire()) {
            throw reject(RejectionReason.ADMISSION_FULL, 0L);
        }
    }

    /**
     * The rest of an acquisition, once the admission permit is held: kept apart so that {@link #acquire()} stays
     * small enough to be inlined into its caller, where an immediate refusal is thrown and caught in one compiled
     * frame instead of being unwound across a call.
     */
    private Permit awaitExecution(long maxWaitNanos, long deadlineNanos, boolean hasDeadline) {
        boolean clocked = timed || hasDeadline;
        long waitStart = clocked ? System.nanoTime() : 0L;
        boolean executing = false;
        boolean handedOut = false;
        try {
            if (timed) {
                listener.onWaitStarted(workload);
            }
            executing = execution.tryAcquire(maxWaitNanos, TimeUnit.NANOSECONDS);
            long now = clocked ? System.nanoTime() : 0L;
            if (!executing || (hasDeadline && now - deadlineNanos >= 0)) {
                throw reject(RejectionReason.QUEUE_TIMEOUT, now - waitStart);
            }
            Permit permit = new Permit(this, now, deadlineNanos, hasDeadline);
            HELD_GATE.set(this);
            listener.onAdmitted(workload, now - waitStart);
            handedOut = true;
            return permit;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw reject(RejectionReason.INTERRUPTED, clocked ? System.nanoTime() - waitStart : 0L);
        } finally {
            if (!handedOut) {
                // Whichever way this call is leaving without a permit, give back what it took.
                if (executing) {
                    HELD_GATE.set(null);
                    execution.release();
                }
                admission.release();
            }
        }
    }

    /** Called once per permit, by its owner thread ({@link Permit#close()} sees to both). */
    void release(long admittedAtNanos, ExecutionOutcome outcome) {
        HELD_GATE.set(null);
        // Execution first: a queued waiter takes it before a newcomer can take the admission slot.
        execution.release();
        admission.release();
        if (timed) {
            listener.onReleased(workload, outcome, System.nanoTime() - admittedAtNanos);
        }
    }

    /**
     * Changes B and Q without blocking. Growing takes effect at once. Shrinking never waits and never
     * disturbs running work: new admissions obey the new limits while the operations already inside drain.
     *
     * @throws IllegalArgumentException for a B below 1, a Q below 0, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resize(int maxConcurrent, int maxQueued) {
        GateConfig resized = config.toBuilder().maxConcurrent(maxConcurrent).maxQueued(maxQueued).build();
        resizeLock.lock();
        try {
            resizeSequence++;
            GateConfig current = config;
            // Grow execution before admission and shrink admission before execution, so that at no moment
            // more operations are admitted than the old or the new limits allow.
            int executionDelta = resized.maxConcurrent() - current.maxConcurrent();
            int admissionDelta = resized.maxAdmitted() - current.maxAdmitted();
            if (executionDelta > 0) {
                execution.adjust(executionDelta);
                admission.adjust(admissionDelta);
            } else {
                admission.adjust(admissionDelta);
                execution.adjust(executionDelta);
            }
            config = resized;
            resizeSequence++;
        } finally {
            resizeLock.unlock();
        }
    }

    private void refuseMisuse() {
        AdmissionGate held = HELD_GATE.get();
        if (held != null) {
            throw reentrantEntry(held);
        }
        if (AmbientTransactions.activeOnCurrentThread()) {
            throw entryInsideTransaction();
        }
    }

    private BulkheadMisuseException reentrantEntry(AdmissionGate held) {
        return new BulkheadMisuseException(workload, MisuseKind.REENTRANT_ENTRY,
                "Bulkhead '" + workload + "' entered by a thread that already holds a permit of bulkhead '"
                        + held.workload() + "'. Bulkheads are not reentrant: admit once, at the outermost"
                        + " non-transactional entry point, and call the rest from there.");
    }

    private BulkheadMisuseException entryInsideTransaction() {
        return new BulkheadMisuseException(workload, MisuseKind.ACTIVE_TRANSACTION,
                "Bulkhead '" + workload + "' entered inside an active transaction: admission must happen"
                        + " before the transaction starts. Move the bulkhead to a non-transactional entry"
                        + " method that calls the transactional code.");
    }

    private BulkheadRejectedException reject(RejectionReason reason, long queueWaitNanos) {
        if (timed) {
            listener.onRejected(workload, reason, queueWaitNanos);
        }
        return new BulkheadRejectedException(workload, reason, captureStackTrace);
    }

    /** The workload name. */
    public String workload() {
        return workload;
    }

    /** The limits now in force (they change with {@link #resize}). */
    public GateConfig config() {
        return config;
    }

    /**
     * Execution permits free right now; negative for a while after a shrink. For observation only: the
     * value may be stale before it is returned, so never decide to enter on it.
     */
    public int availableExecutionPermits() {
        return execution.availablePermits();
    }

    /** Admission permits free right now; negative for a while after a shrink. For observation only. */
    public int availableAdmissionPermits() {
        return admission.availablePermits();
    }

    /** Operations holding an execution permit right now. For observation only. */
    public int active() {
        return readBetweenResizes(limits -> limits.maxConcurrent() - execution.availablePermits());
    }

    /** Operations admitted and still waiting for an execution permit. For observation only; never below 0. */
    public int waiting() {
        return readBetweenResizes(limits -> {
            int admitted = limits.maxAdmitted() - admission.availablePermits();
            int running = limits.maxConcurrent() - execution.availablePermits();
            // The two semaphores are read one after the other: a release in between could make this negative.
            return Math.max(0, admitted - running);
        });
    }

    /**
     * A figure computed from the config and the semaphores that config belongs to. Never blocks: a resize holds
     * the sequence odd only while it adjusts two semaphores without waiting, so a reader retries briefly.
     */
    private int readBetweenResizes(ToIntFunction<GateConfig> figure) {
        while (true) {
            long sequence = resizeSequence;
            if ((sequence & 1) == 0) {
                int value = figure.applyAsInt(config);
                if (sequence == resizeSequence) {
                    return value;
                }
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Threads parked waiting for an execution permit right now: an estimate for observation only. An
     * admitted operation may not have begun to wait yet, so this can trail {@link #waiting()}.
     */
    public int queueLength() {
        return execution.getQueueLength();
    }

    @Override
    public String toString() {
        return "AdmissionGate[" + workload + ", " + config + "]";
    }
}
