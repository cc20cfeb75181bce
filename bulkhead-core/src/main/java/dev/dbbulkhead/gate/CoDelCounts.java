package dev.dbbulkhead.gate;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@linkplain QueueDiscipline#CODEL CoDel} discipline's mechanism: the counts of {@link AdmissionCounts},
 * its fast path unchanged, with the waiters in a queue of its own that can be served from either end, as a
 * {@link StandingQueue} judges.
 *
 * <p>The counts stay in the one word: a waiter is admitted and not running. A release that finds nobody admitted
 * but not running gives both counts back with one compare-and-set, as under FIFO. Otherwise it takes the lock and
 * hands its running slot <em>directly</em> to a queued waiter — the oldest while the queue absorbs bursts, the newest
 * while it stands — so that no newcomer can take it (newcomers never barge anyway: the fast path is closed while
 * anyone is admitted but not running). With nobody queued, or more running than B after a shrink, it gives the slot
 * back. A waiter joining the queue takes, under the same lock, a slot that is free: a release that found the queue
 * empty a moment before may have given one back. A grow hands its room to queued waiters under the lock.
 *
 * <p>Shedding: while the queue stands, waiters past the {@linkplain StandingQueue#overdue overdue wait} are refused,
 * scanning from the oldest whenever a waiter joins or a release hands on, and by each waiter itself once it has
 * waited that long. The queue wait (or the budget) bounds every wait, standing or not.
 *
 * <p>A waiter's state changes only under the lock; a woken waiter that finds itself granted or shed leaves without
 * it. The lock is held for microseconds, never while parking; listeners are told by the gate, outside it.
 */
final class CoDelCounts extends HandOffCounts {

    private static final long serialVersionUID = 1L;

    /** One queued operation. */
    private static final class Waiter extends HandedWait {
        private final Thread thread = Thread.currentThread();
        private final long queuedAt;
        /**
         * How its wait ended, decided under the lock: {@code null} while it waits. A waiter that left on its own
         * ended {@link WaitEnd#TIMED_OUT}.
         */
        private volatile @Nullable WaitEnd end;

        Waiter(long queuedAt) {
            this.queuedAt = queuedAt;
        }
    }

    /**
     * The wait of every waiter, which joins the queue as it begins to wait: a waiter's own state is made then, so one
     * serves them all.
     */
    private final transient Wait inQueue = new Wait() {
        @Override
        public WaitEnd await(long maxWaitNanos) throws InterruptedException {
            return joinAndAwait(maxWaitNanos);
        }

        @Override
        public WaitEnd withdraw() {
            // Not in the queue yet: it joins only as it begins to wait.
            return WaitEnd.TIMED_OUT;
        }
    };
    /** Oldest first: waiters join at the tail, in the order of {@code queuedAt}. Guarded by {@link #lock}. */
    private final transient ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final transient StandingQueue judge;

    private CoDelCounts(GateConfig limits, LongSupplier clock) {
        super(limits, clock);
        this.judge = new StandingQueue(limits.queueTargetDelay().toNanos(), limits.queueInterval().toNanos(),
                clock.getAsLong());
    }

    /**
     * The counts of a CoDel gate, typed as their superclass: the gate that calls this never names this class, so
     * a JVM with FIFO gates only never loads it, and their release stays a call with a single target.
     *
     * @param clock monotonic nanoseconds, {@link System#nanoTime()} but in tests
     */
    static AdmissionCounts create(GateConfig limits, LongSupplier clock) {
        return new CoDelCounts(limits, clock);
    }

    /** The wait of an operation admitted as a waiter: it joins the queue as it begins to wait, {@code ticket} unread. */
    @Override
    Wait join(WaitingWork.Ticket ticket) {
        return inQueue;
    }

    /**
     * Joins the queue and waits for a running slot. Returns {@link WaitEnd#RUNNING} with the slot held (handed over,
     * or free when it joined — a free slot is taken at once even with a zero wait, as only an empty queue leaves one
     * free); {@link WaitEnd#TIMED_OUT} when {@code maxWaitNanos} passed first; {@link WaitEnd#SHED} when refused
     * because the queue stood; or throws {@link InterruptedException}, clearing the flag, when interrupted on entry or
     * while waiting. A waiter granted a slot before it saw its interrupt or its deadline keeps the slot, with the flag
     * set again; a shed waiter's interrupt flag is set again too.
     */
    private WaitEnd joinAndAwait(long maxWaitNanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Waiter waiter;
        lock.lock();
        try {
            long now = clock.getAsLong();
            judge.advance(now);
            grantFreeSlots(now);
            if (waiters.isEmpty() && tryAcquireShared(0L) >= 0) {
                return WaitEnd.RUNNING;
            }
            if (maxWaitNanos <= 0L) {
                return WaitEnd.TIMED_OUT;
            }
            waiter = new Waiter(now);
            if (waiters.isEmpty()) {
                judge.filled(now);
            }
            waiters.addLast(waiter);
            queued = waiters.size();
            // After joining: a queue whose overdue waiters this newcomer replaces never empties.
            shedOverdue(now);
        } finally {
            lock.unlock();
        }
        return await(waiter, maxWaitNanos);
    }

    /** Parks until granted, shed, timed out or interrupted; wakes once at the overdue wait to judge itself. */
    private WaitEnd await(Waiter waiter, long maxWaitNanos) throws InterruptedException {
        try {
            return awaitDecision(waiter, maxWaitNanos);
        } finally {
            waiter.endedOnItsThread();
        }
    }

    private WaitEnd awaitDecision(Waiter waiter, long maxWaitNanos) throws InterruptedException {
        long judgeSelfAfter = judge.overdueAfterNanos();
        WaitEnd decided;
        while ((decided = waiter.end) == null) {
            long waited = clock.getAsLong() - waiter.queuedAt;
            boolean interrupted = Thread.interrupted();
            boolean timedOut = waited >= maxWaitNanos;
            if (interrupted || timedOut || waited > judgeSelfAfter) {
                WaitEnd end = settle(waiter, interrupted, timedOut);
                if (end != null) {
                    return end;
                }
                judgeSelfAfter = Long.MAX_VALUE;
                continue;
            }
            long wakeAfter = judgeSelfAfter < maxWaitNanos ? judgeSelfAfter + 1 : maxWaitNanos;
            LockSupport.parkNanos(this, wakeAfter - waited);
        }
        return decided;
    }

    /**
     * Under the lock: what a woken waiter's interrupt, deadline or overdue wait means, given what others may have
     * decided for it meanwhile.
     *
     * @return how the wait ended, or {@code null} to wait on
     */
    private @Nullable WaitEnd settle(Waiter waiter, boolean interrupted, boolean timedOut) throws InterruptedException {
        lock.lock();
        try {
            long now = clock.getAsLong();
            judge.advance(now);
            WaitEnd decided = waiter.end;
            if (decided != null) {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                return decided;
            }
            if (interrupted || timedOut) {
                remove(waiter, WaitEnd.TIMED_OUT, now);
                if (interrupted) {
                    throw new InterruptedException();
                }
                return WaitEnd.TIMED_OUT;
            }
            if (judge.overdue(now - waiter.queuedAt)) {
                remove(waiter, WaitEnd.SHED, now);
                return WaitEnd.SHED;
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    boolean anyToServe() {
        return !waiters.isEmpty();
    }

    @Override
    StandingQueue judge() {
        return judge;
    }

    /** Under the lock, the slot taken for it: serves the oldest waiter, or the newest while the queue stands. */
    @Override
    HandedWait grantNext(long now) {
        judge.granted(now - waiters.peekFirst().queuedAt);
        Waiter next = judge.standing() ? waiters.peekLast() : waiters.peekFirst();
        remove(next, WaitEnd.RUNNING, now);
        return next;
    }

    /** Under the lock: refuses, oldest first, the waiters overdue in a standing queue. */
    @Override
    void shedOverdue(long now) {
        while (!waiters.isEmpty() && judge.overdue(now - waiters.peekFirst().queuedAt)) {
            remove(waiters.peekFirst(), WaitEnd.SHED, now);
        }
    }

    /**
     * Under the lock: takes {@code waiter} out of the queue with how its wait ended, counts it if shed, and wakes it if
     * another decided.
     */
    private void remove(Waiter waiter, WaitEnd end, long now) {
        if (end == WaitEnd.SHED) {
            shed++;
        }
        waiters.removeFirstOccurrence(waiter);
        queued = waiters.size();
        if (waiters.isEmpty()) {
            judge.emptied(now);
        }
        waiter.end = end;
        if (waiter.thread != Thread.currentThread()) {
            LockSupport.unpark(waiter.thread);
        }
    }
}
