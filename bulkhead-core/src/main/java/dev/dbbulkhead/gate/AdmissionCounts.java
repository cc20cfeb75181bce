package dev.dbbulkhead.gate;

import dev.dbbulkhead.RejectionReason;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Both permit counts of one gate in one word — admitted operations (running or waiting) in the high 32 bits,
 * running ones in the low 32 — with a fair queue for the operations that wait to run.
 *
 * <p>Why one word: the gate's two semaphores would put two contended words between the CPUs on every admission
 * and release. Here an admission with nobody waiting is one compare-and-set raising both counts, a release one
 * lowering both. Holding "B + Q admission permits" is {@code admitted <= B + Q}, holding "B execution permits" is
 * {@code running <= B}; a waiter is admitted but not running.
 *
 * <p>Fairness: while anyone waits, {@code admitted > running}, and the fast path is closed to newcomers, so none can
 * barge past a waiter. Waiters take a running slot through the synchronizer's fair queue, in arrival order.
 *
 * <p>Limits apart from counts: the limits are read afresh at every decision and a resize replaces them without
 * touching the counts. After a shrink the counts may exceed the new limits for a while; they drain as operations
 * end, and nothing new enters until they are below. A grow wakes the queue.
 *
 * <p>This class is the {@linkplain QueueDiscipline#FIFO FIFO} discipline. {@link CoDelCounts} and
 * {@link ScheduledCounts} (the order of a gate with {@link AdmissionRules}) keep the same word and the same fast path,
 * and override, through {@link HandOffCounts}, only how waiters wait, how a release with waiters hands its slot on,
 * and how a grow serves them. A gate picks one when it is built, so that a FIFO gate's admission and release
 * run exactly this code: the fast path reads no discipline, and {@link #tryRunAtOnce()} is final.
 */
sealed class AdmissionCounts extends AbstractQueuedLongSynchronizer permits HandOffCounts {

    private static final long serialVersionUID = 1L;
    private static final long ONE_RUNNING = 1L;
    static final long ONE_ADMITTED = 1L << 32;
    static final long ONE_OPERATION = ONE_ADMITTED | ONE_RUNNING;
    /** A releaser handing its slot over yields this many times, then pauses once (as HikariCP's hand-over does). */
    static final int YIELDS_BETWEEN_PAUSES = 256;
    /** The most a releaser yields for one hand-over: a bound that keeps its return independent of other threads. */
    static final int MOST_HAND_OVER_YIELDS = 4_096;
    static final long PAUSE_NANOS = 10_000L;

    /** How a wait for a running slot ended, when it did not end by an interrupt. */
    enum WaitEnd {
        /** The waiter holds a running slot. */
        RUNNING(null),
        /**
         * The waiter runs on a place of its gate's lending pool, taken for it ({@link ScheduledCounts#grantLentPlace});
         * it holds that place, and no running slot or queue place of its gate.
         */
        BORROWED(null),
        /** The wait ran out without a slot; the waiter is still admitted and must {@link #leaveQueue()}. */
        TIMED_OUT(null),
        /** The CoDel discipline refused the waiter; it is still admitted and must {@link #leaveQueue()}. */
        SHED(null),
        /** Its place went to more critical work ({@link ScheduledCounts#displace}); it holds nothing. */
        DISPLACED_BY_CRITICALITY(RejectionReason.PUSHED_OUT),
        /**
         * Its place, a new request's, went to work of a request in progress ({@link ScheduledCounts#displace}); it
         * holds nothing.
         */
        DISPLACED_BY_PROGRESS(RejectionReason.PUSHED_OUT),
        /** Its place went to work of a flow less far over its share ({@link ScheduledCounts#displace}); it holds nothing. */
        DISPLACED_BY_SHARE(RejectionReason.OVER_FAIR_SHARE);

        private final @Nullable RejectionReason displacedAs;

        WaitEnd(@Nullable RejectionReason displacedAs) {
            this.displacedAs = displacedAs;
        }

        /** What a waiter whose place went to a newcomer is refused as; {@code null} for the other ends. */
        @Nullable RejectionReason displacedAs() {
            return displacedAs;
        }
    }

    /**
     * The wait of one operation admitted as a waiter, as the discipline of its counts keeps it: the one contract the
     * entry and the hand-out of every discipline wait through. Waited for, or taken out, by its own thread only.
     */
    interface Wait {

        /**
         * Waits at most {@code maxWaitNanos} for a running slot: {@link WaitEnd#RUNNING} with the slot held;
         * {@link WaitEnd#BORROWED} on a place its pool lent; {@link WaitEnd#TIMED_OUT} or {@link WaitEnd#SHED}
         * without one, still admitted; a {@code DISPLACED_...} end holding nothing; or throws
         * {@link InterruptedException}, clearing the flag, still admitted.
         */
        WaitEnd await(long maxWaitNanos) throws InterruptedException;

        /**
         * Takes it out before it waits, as a gate shutting down does: {@link WaitEnd#TIMED_OUT} when nothing was
         * decided for it meanwhile (still admitted), else what was.
         */
        WaitEnd withdraw();
    }

    /** How an admission under {@link AdmissionRules} ended: admitted to run or to wait, or refused by which rule. */
    enum Entry {
        /** Admitted and running. */
        RUNNING,
        /** Admitted as a waiter. */
        WAITING,
        /** All {@code B + Q} places are taken. */
        FULL,
        /** Places are left, only places held back for more critical work. */
        RESERVED;

        boolean admitted() {
            return this == RUNNING || this == WAITING;
        }
    }

    /** Never serialized: the synchronizer is serializable only because its JDK superclass is. */
    private transient volatile GateConfig limits;
    /** The wait of every waiter in arrival order: it keeps no state of its own, so one serves them all. */
    private final transient Wait inArrivalOrder = new Wait() {
        @Override
        public WaitEnd await(long maxWaitNanos) throws InterruptedException {
            return tryAcquireSharedNanos(ONE_RUNNING, maxWaitNanos) ? WaitEnd.RUNNING : WaitEnd.TIMED_OUT;
        }

        @Override
        public WaitEnd withdraw() {
            return WaitEnd.TIMED_OUT;
        }
    };

    AdmissionCounts(GateConfig limits) {
        this.limits = limits;
    }

    GateConfig limits() {
        return limits;
    }

    /** Both counts at one instant, to be taken apart with {@link #running} and {@link #admitted}. */
    long snapshot() {
        return getState();
    }

    static int running(long snapshot) {
        return (int) snapshot;
    }

    static int admitted(long snapshot) {
        return (int) (snapshot >>> 32);
    }

    /**
     * The fast path: admits the operation and lets it run at once when nobody waits and fewer than B run.
     *
     * @return whether the operation now counts as admitted and running; when false, nothing changed
     */
    final boolean tryRunAtOnce() {
        while (true) {
            long word = getState();
            int running = running(word);
            if (admitted(word) != running || running >= limits.maxConcurrent()) {
                return false;
            }
            if (compareAndSetState(word, word + ONE_OPERATION)) {
                return true;
            }
        }
    }

    /**
     * Admits the operation as a waiter, unless B + Q operations are admitted already.
     *
     * @return whether the operation now counts as admitted (not yet running); when false, nothing changed
     */
    final boolean tryJoinQueue() {
        while (true) {
            long word = getState();
            if (admitted(word) >= limits.maxAdmitted()) {
                return false;
            }
            if (compareAndSetState(word, word + ONE_ADMITTED)) {
                return true;
            }
        }
    }

    /**
     * The slow path's admission under {@code rules}: as {@link #tryRunAtOnce()} and then {@link #tryJoinQueue()}
     * would, in one compare-and-set, but only while fewer than the ceiling of {@code criticality} are admitted — so a
     * place held back for more critical work is never taken, even by a racing admission. The fast path never calls it.
     *
     * @return {@link Entry#RUNNING} or {@link Entry#WAITING} when admitted; {@link Entry#FULL} or
     *         {@link Entry#RESERVED} with nothing changed
     */
    final Entry tryEnter(AdmissionRules rules, Criticality criticality) {
        while (true) {
            long word = getState();
            Entry entry = entryOf(admitted(word), running(word), limits, rules, criticality);
            if (!entry.admitted()) {
                return entry;
            }
            if (compareAndSetState(word, word + (entry == Entry.RUNNING ? ONE_OPERATION : ONE_ADMITTED))) {
                return entry;
            }
        }
    }

    /**
     * The decision of {@link #tryEnter} at one instant, apart from the compare-and-set that makes it: the gate and the
     * scheduler simulation of the tests take the same one.
     */
    static Entry entryOf(int admitted, int running, GateConfig now, AdmissionRules rules, Criticality criticality) {
        if (admitted >= now.maxAdmitted()) {
            return Entry.FULL;
        }
        if (admitted >= rules.admittedCeiling(criticality, now.maxAdmitted())) {
            return Entry.RESERVED;
        }
        return admitted == running && running < now.maxConcurrent() ? Entry.RUNNING : Entry.WAITING;
    }

    /**
     * The wait of an operation just admitted as a waiter ({@link #tryJoinQueue()}, or {@link Entry#WAITING}): here in
     * arrival order, {@code ticket} unread. Its wait returns {@link WaitEnd#RUNNING} with the slot taken or
     * {@link WaitEnd#TIMED_OUT} when the wait passed without one (a zero wait takes a free slot only if no one waits
     * before it), or throws {@link InterruptedException}; without a slot, the caller is still admitted and must
     * {@link #leaveQueue()}.
     */
    Wait join(WaitingWork.Ticket ticket) {
        return inArrivalOrder;
    }

    /**
     * With every place taken: the wait of an operation that takes the place of the waiter its discipline would serve
     * last, if it puts {@code ticket} before that one; {@code null}, nothing changed, when none comes after it — as in
     * arrival order, where nobody comes after a waiter already queued.
     */
    @Nullable Wait displace(WaitingWork.Ticket ticket) {
        return null;
    }

    /**
     * A place of the gate's lending pool was taken for a queued operation: the waiter the discipline puts first runs
     * on it. Whether one did; false, nothing changed, when nobody waits in an order a lent place is handed in — in
     * arrival order, never: a gate that borrows keeps its waiters in the scheduler's order.
     */
    boolean grantLentPlace() {
        return false;
    }

    /**
     * An operation just admitted running ({@link Entry#RUNNING}) is counted in its flow, where a rule reads what flows
     * run ({@link AdmissionRules#maxRunningPerKey()}): {@code null} when it runs; its wait when its flow runs its cap —
     * it gave its running slot back to the order and waits, still admitted. In arrival order flows count nothing, and
     * it runs: {@code null}.
     */
    @Nullable Wait startRunning(WaitingWork.Ticket ticket) {
        return null;
    }

    /**
     * An operation about to run on a place its pool lent, taken without waiting, is counted in its flow where a rule
     * reads what flows run: whether it may run — false, nothing counted, when its flow runs its cap. In arrival order
     * flows count nothing: true.
     */
    boolean tryCountRunning(WaitingWork.Ticket ticket) {
        return true;
    }

    /**
     * A running operation counted in {@code flow} ends: as {@link #finishRunning()}, its flow told first, so that its
     * slot may go to a waiter of that flow held back by the cap. Arrival order counts no flow.
     */
    void finishRunning(String flow) {
        finishRunning();
    }

    /**
     * An operation counted in {@code flow} ends on a place its pool lent, given back there: its flow is told, and a
     * waiter of it held back by the cap may take a free slot. Arrival order counts no flow, and hands no lent place.
     */
    void finishBorrowed(String flow) {
    }

    /** Gives back the running slot of an admitted operation that waits instead: it stays admitted. */
    final void stopRunningStillAdmitted() {
        tryReleaseShared(ONE_RUNNING);
    }

    /** Whether no admitted operation waits for a running slot: a borrow would not pass one. Read once. */
    final boolean nobodyWaits() {
        long word = getState();
        return admitted(word) == running(word);
    }

    /** Whether all B run and nobody waits, read at one instant: only then may a gate borrow. */
    final boolean allRunningAndNobodyWaits() {
        long word = getState();
        int running = running(word);
        return admitted(word) == running && running >= limits.maxConcurrent();
    }

    /** A waiter gives up without running: one admitted fewer. */
    final void leaveQueue() {
        while (true) {
            long word = getState();
            if (compareAndSetState(word, word - ONE_ADMITTED)) {
                return;
            }
        }
    }

    /**
     * A running operation ends: one admitted and one running fewer, and the first waiter may run.
     *
     * <p>When a parked waiter was woken for the slot, a platform thread returns once the waiter holds it, or no slot
     * is free, or nobody is parked any more, or after {@value #MOST_HAND_OVER_YIELDS} yields: it yields its processor
     * until then, as HikariCP's {@code ConcurrentBag} does when it hands a connection over. Why: while anyone waits the
     * fast path is closed, so the freed slot stays empty until the woken waiter is scheduled; on a busy machine that is
     * a whole run-queue wait, during which the releaser would go on to its next work and the slot would do nothing.
     * Only parked waiters are waited for — one that is admitted but still on its way to the queue may be waiting for
     * this very thread — and the yields are bounded, so the return never depends on another thread. A virtual thread
     * returns at once. It never parks for long and never reads or clears the interrupt flag.
     */
    void finishRunning() {
        releaseShared(ONE_OPERATION);
        yieldWhileHandOverPending(null);
    }

    /**
     * Yields the processor while {@link #handOverPending(HandedWait)}, at most {@value #MOST_HAND_OVER_YIELDS} times,
     * pausing {@value #PAUSE_NANOS} ns every {@value #YIELDS_BETWEEN_PAUSES}: a waiter that cannot get a processor at
     * all is left one for a moment. A platform thread only. Never reads or clears the interrupt flag.
     */
    final void yieldWhileHandOverPending(@Nullable HandedWait handedTo) {
        if (!handOverPending(handedTo) || VirtualThreads.current()) {
            // A virtual releaser does not yield: its yield would unmount it and mount it again, which costs more than
            // the woken waiter's start, itself a task for the carrier pool rather than a thread for the kernel.
            return;
        }
        for (int yields = 1; yields <= MOST_HAND_OVER_YIELDS && handOverPending(handedTo); yields++) {
            if (yields % YIELDS_BETWEEN_PAUSES == 0) {
                LockSupport.parkNanos(PAUSE_NANOS);
            } else {
                Thread.yield();
            }
        }
    }

    /**
     * Whether a parked waiter has yet to take a free slot. Under arrival order the synchronizer wakes the waiter and
     * this release does not learn which: {@code handedTo} is {@code null}, and the yields end once the slot is taken,
     * whoever takes it.
     */
    boolean handOverPending(@Nullable HandedWait handedTo) {
        long word = getState();
        int running = running(word);
        return admitted(word) != running && running < limits.maxConcurrent() && hasQueuedThreads();
    }

    /**
     * Takes every place at once — {@code limits}' B running and Q waiting — when none is taken: one compare-and-set
     * from the idle word, so that nothing can enter between an "idle?" look and the taking.
     *
     * @return whether the places are now taken; when false, nothing changed
     */
    final boolean tryTakeEveryPlace(GateConfig limits) {
        return compareAndSetState(0L, (long) limits.maxAdmitted() * ONE_ADMITTED + limits.maxConcurrent());
    }

    /**
     * Gives back places taken by {@link #tryTakeEveryPlace}: {@code running} running and {@code waiting} waiting,
     * with no operation behind them. A waiter that joined after a grow meanwhile may run now.
     */
    void giveBackPlaces(int running, int waiting) {
        releaseShared((long) running * ONE_OPERATION + (long) waiting * ONE_ADMITTED);
    }

    /** Replaces the limits; the counts stay as they are. Wakes the first waiter, who takes any new room. */
    void changeLimits(GateConfig resized) {
        limits = resized;
        releaseShared(0L);
    }

    /** Flows the order of waiting work knows right now; -1 where waiters wait in no order of flows. For tests. */
    int flowsKnown() {
        return -1;
    }

    /** Threads parked for a running slot: an estimate, for observation only. */
    int parkedWaiters() {
        return getQueueLength();
    }

    /** Whether the queue is judged standing; never under arrival order. For observation only. */
    boolean standing() {
        return false;
    }

    /** Waiters refused before their wait ran out; none under arrival order. For observation only. */
    long shedCount() {
        return 0L;
    }

    @Override
    protected long tryAcquireShared(long ignored) {
        if (hasQueuedPredecessors()) {
            return -1L;
        }
        while (true) {
            long word = getState();
            long free = (long) limits.maxConcurrent() - running(word);
            if (free <= 0) {
                return -1L;
            }
            if (compareAndSetState(word, word + ONE_RUNNING)) {
                // What is left tells the synchronizer whether to wake the next waiter too.
                return free - 1;
            }
        }
    }

    @Override
    protected boolean tryReleaseShared(long operations) {
        while (operations != 0) {
            long word = getState();
            if (compareAndSetState(word, word - operations)) {
                break;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        long word = getState();
        return "admitted=" + admitted(word) + ", running=" + running(word) + ", parked=" + parkedWaiters();
    }
}
