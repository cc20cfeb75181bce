package dev.dbbulkhead.gate;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The counts of a gate with {@link AdmissionRules}: the one word and the fast path of {@link AdmissionCounts}, with
 * the waiters in {@link WaitingWork}'s order instead of arrival order. The mechanism only; who goes first is
 * {@link WaitingWork}'s.
 *
 * <p>A release hands its running slot directly to the waiter the order puts first ({@link HandOffCounts}). A waiter
 * joining takes, under the lock, a slot a release gave back a moment before it was queued, if the order puts it
 * first.
 *
 * <p>With every place taken, a newcomer the order puts before the last waiter takes that waiter's place
 * ({@link #displace}): the admitted count does not change, so B + Q holds exactly, and the displaced waiter leaves
 * holding nothing.
 *
 * <p>Under the {@linkplain QueueDiscipline#CODEL CoDel discipline}, a {@link StandingQueue} judges the queue as
 * {@link CoDelCounts} does, and while it stands the waiters past the target delay are refused
 * ({@link WaitEnd#SHED}), the oldest first; who is served stays the order's.
 *
 * <p>A waiter's state changes only under the lock; a woken waiter that finds itself decided for leaves without it. The
 * lock is held for microseconds, never while parking.
 */
final class ScheduledCounts extends HandOffCounts {

    private static final long serialVersionUID = 1L;

    /** One queued operation, as its own thread and the threads deciding for it see it: its wait in the order. */
    final class Queued extends HandedWait implements Wait {
        private final Thread thread = Thread.currentThread();
        private final long queuedAt;
        /**
         * How its wait ended, decided under the lock: {@code null} while it waits. A waiter that left on its own
         * ended {@link WaitEnd#TIMED_OUT}, still admitted.
         */
        private volatile @Nullable WaitEnd end;
        /** Set under the lock right after it is built, as the order's entry needs the place to name. */
        private WaitingWork.@Nullable Waiter<Queued> waiter;

        private Queued(long queuedAt) {
            this.queuedAt = queuedAt;
        }

        @Override
        public WaitEnd await(long maxWaitNanos) throws InterruptedException {
            return ScheduledCounts.this.await(this, maxWaitNanos);
        }

        @Override
        public WaitEnd withdraw() {
            return ScheduledCounts.this.withdraw(this);
        }
    }

    /** Guarded by {@link #lock}. */
    private final transient WaitingWork<Queued> waiting;
    /** The CoDel discipline's judgement, or {@code null} under arrival order's. Guarded by {@link #lock}. */
    private final transient @Nullable StandingQueue judge;
    /** Under CoDel, the waiters oldest first, for shedding; empty otherwise. Guarded by {@link #lock}. */
    private final transient ArrayDeque<Queued> oldestFirst = new ArrayDeque<>();

    private ScheduledCounts(GateConfig limits, LongSupplier clock) {
        super(limits, clock);
        AdmissionRules rules = limits.admissionRules();
        this.waiting = new WaitingWork<>(rules.keySlots(), rules.maxRunningPerKey());
        this.judge = limits.queueDiscipline() == QueueDiscipline.CODEL ? new StandingQueue(
                limits.queueTargetDelay().toNanos(), limits.queueInterval().toNanos(), clock.getAsLong()) : null;
    }

    /**
     * The counts of a gate with rules, typed as their superclass: a JVM whose gates have none never loads this class,
     * and their release stays a call with a single target.
     *
     * @param clock monotonic nanoseconds, {@link System#nanoTime()} but in tests
     */
    static AdmissionCounts create(GateConfig limits, LongSupplier clock) {
        return new ScheduledCounts(limits, clock);
    }

    /**
     * Queues an admitted operation (counted as admitted, not running), and serves it at once if a slot is free and the
     * order puts it first. Its wait is then {@link #await}ed.
     */
    @Override
    Queued join(WaitingWork.Ticket ticket) {
        lock.lock();
        try {
            long now = clock.getAsLong();
            Queued place = add(ticket, now);
            grantFreeSlots(now);
            // After joining: a queue whose overdue waiters this newcomer replaces never empties.
            shedOverdue(now);
            return place;
        } finally {
            lock.unlock();
        }
    }

    /**
     * With every place taken: queues an operation in the place of the waiter the order would serve last, if the order
     * puts {@code ticket} before it. That waiter is told it was displaced, by priority (criticality, a request in
     * progress) or by its flow's share; the counts do not change.
     *
     * @return the queued operation, or {@code null} when no waiter comes after it: nothing changed
     */
    @Override
    @Nullable Queued displace(WaitingWork.Ticket ticket) {
        lock.lock();
        try {
            WaitingWork.Waiter<Queued> last = waiting.displacedBy(ticket);
            if (last == null) {
                return null;
            }
            decide(last, switch (WaitingWork.displacement(last, ticket)) {
                case BY_CRITICALITY -> WaitEnd.DISPLACED_BY_CRITICALITY;
                case BY_PROGRESS -> WaitEnd.DISPLACED_BY_PROGRESS;
                case BY_SHARE -> WaitEnd.DISPLACED_BY_SHARE;
            });
            return add(ticket, clock.getAsLong());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a queued operation's running slot. Returns {@link WaitEnd#RUNNING} with the slot held;
     * {@link WaitEnd#TIMED_OUT} when {@code maxWaitNanos} passed first (still admitted: the caller must
     * {@link #leaveQueue()}); a {@code DISPLACED_BY_...} end when its place
     * went to a newcomer (it holds nothing); or throws {@link InterruptedException}, clearing the flag, when
     * interrupted while waiting (still admitted). A waiter decided for before it saw its interrupt or its deadline
     * keeps that decision, with the interrupt flag set again.
     */
    private WaitEnd await(Queued place, long maxWaitNanos) throws InterruptedException {
        try {
            return awaitDecision(place, maxWaitNanos);
        } finally {
            place.endedOnItsThread();
        }
    }

    private WaitEnd awaitDecision(Queued place, long maxWaitNanos) throws InterruptedException {
        // Under CoDel, a waiter wakes once at the target delay to judge itself, as no release may come to shed it.
        long judgeSelfAfter = judge == null ? Long.MAX_VALUE : judge.overdueAfterNanos();
        WaitEnd decided;
        while ((decided = place.end) == null) {
            long waited = clock.getAsLong() - place.queuedAt;
            boolean interrupted = Thread.interrupted();
            if (interrupted || waited >= maxWaitNanos) {
                return leave(place, interrupted);
            }
            if (waited > judgeSelfAfter) {
                judgeSelfAfter = Long.MAX_VALUE;
                shedIfOverdue(place);
                continue;
            }
            long wakeAfter = judgeSelfAfter < maxWaitNanos ? judgeSelfAfter + 1 : maxWaitNanos;
            LockSupport.parkNanos(this, wakeAfter - waited);
        }
        return decided;
    }

    private void shedIfOverdue(Queued place) {
        lock.lock();
        try {
            StandingQueue standing = Objects.requireNonNull(judge);
            long now = clock.getAsLong();
            standing.advance(now);
            if (place.end == null && standing.overdue(now - place.queuedAt)) {
                decide(Objects.requireNonNull(place.waiter), WaitEnd.SHED);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a queued operation out, as its own wait does when it ends and a shutdown does before it waits:
     * {@link WaitEnd#TIMED_OUT} when it was still queued (still admitted), else what was decided for it meanwhile.
     */
    private WaitEnd withdraw(Queued place) {
        lock.lock();
        try {
            WaitEnd decided = place.end;
            if (decided != null) {
                return decided;
            }
            decide(Objects.requireNonNull(place.waiter), WaitEnd.TIMED_OUT);
            return WaitEnd.TIMED_OUT;
        } finally {
            lock.unlock();
            if (place.thread == Thread.currentThread()) {
                // A slot handed to it meanwhile is seen now, and a release yielding for it stops: a shutdown's
                // withdrawal never waits in await, whose own end says so otherwise.
                place.endedOnItsThread();
            }
        }
    }

    /** A waiter's own end of its wait: taken out unless decided for meanwhile, whose decision it then keeps. */
    private WaitEnd leave(Queued place, boolean interrupted) throws InterruptedException {
        WaitEnd end = withdraw(place);
        if (interrupted) {
            if (end == WaitEnd.TIMED_OUT) {
                throw new InterruptedException();
            }
            Thread.currentThread().interrupt();
        }
        return end;
    }

    @Override
    boolean anyToServe() {
        return waiting.peekNext() != null;
    }

    /**
     * Counts an operation admitted running in its flow, when flows count what they run: it runs ({@code null}) unless
     * its flow runs its cap — then its slot goes to the waiter the order serves, if any, and it waits, still admitted,
     * until an operation of its flow ends.
     */
    @Override
    @Nullable Queued startRunning(WaitingWork.Ticket ticket) {
        if (!waiting.countsRunning()) {
            return null;
        }
        lock.lock();
        try {
            if (waiting.tryStart(ticket)) {
                return null;
            }
            long now = clock.getAsLong();
            advance(now);
            stopRunningStillAdmitted();
            Queued place = add(ticket, now);
            grantFreeSlots(now);
            return place;
        } finally {
            lock.unlock();
        }
    }

    @Override
    boolean tryCountRunning(WaitingWork.Ticket ticket) {
        if (!waiting.countsRunning()) {
            return true;
        }
        lock.lock();
        try {
            return waiting.tryStart(ticket);
        } finally {
            lock.unlock();
        }
    }

    @Override
    void finishRunning(String flow) {
        flowFinished(flow, false);
        // Then as any release: the slot goes to the waiter the order serves, a waiter of this flow among them now.
        finishRunning();
    }

    @Override
    void finishBorrowed(String flow) {
        flowFinished(flow, true);
    }

    /** Tells the order an operation of {@code flow} ended; {@code serve}: free slots go to waiters it may now serve. */
    private void flowFinished(String flow, boolean serve) {
        lock.lock();
        try {
            waiting.finished(flow);
            if (serve) {
                long now = clock.getAsLong();
                advance(now);
                grantFreeSlots(now);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    @Nullable StandingQueue judge() {
        return judge;
    }

    /** Flows the order knows right now; for tests. */
    @Override
    int flowsKnown() {
        lock.lock();
        try {
            return waiting.flowsKnown();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock. */
    private Queued add(WaitingWork.Ticket ticket, long now) {
        Queued place = new Queued(now);
        if (judge != null) {
            judge.advance(now);
            if (waiting.isEmpty()) {
                judge.filled(now);
            }
            oldestFirst.addLast(place);
        }
        place.waiter = waiting.add(ticket, place);
        queued = waiting.size();
        return place;
    }

    /** Under the lock, under CoDel: refuses, oldest first, the waiters overdue in a standing queue. */
    @Override
    void shedOverdue(long now) {
        if (judge == null) {
            return;
        }
        judge.advance(now);
        for (Queued oldest = oldestFirst.peekFirst(); oldest != null && judge.overdue(now - oldest.queuedAt);
                oldest = oldestFirst.peekFirst()) {
            decide(Objects.requireNonNull(oldest.waiter), WaitEnd.SHED);
        }
    }

    /** Under the lock, the slot taken for it: serves the waiter the order puts first. */
    @Override
    HandedWait grantNext(long now) {
        return serveNext(now, WaitEnd.RUNNING);
    }

    /**
     * A place of the gate's lending pool was taken for a queued operation ({@link PoolPlaces#runNextWaiterOnLentPlace}):
     * the waiter the order puts first leaves the queue — one admitted fewer — and runs on it ({@link WaitEnd#BORROWED}),
     * its use counted in its flow as a run on the gate's own places would be.
     *
     * @return whether a waiter took it; false, with nothing changed, when nobody is queued
     */
    @Override
    boolean grantLentPlace() {
        lock.lock();
        try {
            if (!anyToServe()) {
                return false;
            }
            long now = clock.getAsLong();
            advance(now);
            leaveQueue();
            serveNext(now, WaitEnd.BORROWED);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: serves the waiter the order puts first — {@link WaitEnd#RUNNING} on a slot of the gate,
     * {@link WaitEnd#BORROWED} on a lent place — and returns its wait.
     */
    private Queued serveNext(long now, WaitEnd served) {
        WaitingWork.Waiter<Queued> next = Objects.requireNonNull(waiting.peekNext(), "a waiter to serve");
        if (judge != null) {
            // CoDel's sample: the wait of the oldest waiter queued when a place is handed on.
            judge.granted(now - Objects.requireNonNull(oldestFirst.peekFirst()).queuedAt);
        }
        waiting.granted(next);
        decide(next, served);
        return next.owner;
    }

    /** Under the lock: takes the waiter out of the order (served ones already are) and tells it how it ended. */
    private void decide(WaitingWork.Waiter<Queued> waiter, WaitEnd end) {
        if (end != WaitEnd.RUNNING && end != WaitEnd.BORROWED) {
            waiting.remove(waiter);
        }
        queued = waiting.size();
        Queued place = waiter.owner;
        if (judge != null) {
            oldestFirst.remove(place);
            if (waiting.isEmpty()) {
                judge.emptied(clock.getAsLong());
            }
        }
        if (end == WaitEnd.SHED) {
            shed++;
        }
        place.end = end;
        if (place.thread != Thread.currentThread()) {
            LockSupport.unpark(place.thread);
        }
    }
}
