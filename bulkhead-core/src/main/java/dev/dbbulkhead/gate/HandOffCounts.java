package dev.dbbulkhead.gate;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The mechanism of the disciplines that keep their waiters in a queue of their own — {@link CoDelCounts} and
 * {@link ScheduledCounts} — on the counts and the fast path of {@link AdmissionCounts}: a release that finds nobody
 * admitted but not running gives both counts back with one compare-and-set; otherwise it takes the lock and hands its
 * running slot <em>directly</em> to the waiter the discipline picks, so that no newcomer can take it, or gives it back
 * when nobody is queued or B is exceeded after a shrink. A grow, and places given back, hand their room to queued
 * waiters under the lock. Who is picked, and who is refused as overdue, is the discipline's.
 *
 * <p>A release that hands its slot to a parked waiter then yields its processor until that waiter is running, as
 * under arrival order ({@link AdmissionCounts#finishRunning()}): the slot is the waiter's from the hand-over on, and
 * would otherwise do nothing until the waiter is scheduled.
 */
abstract sealed class HandOffCounts extends AdmissionCounts permits CoDelCounts, ScheduledCounts {

    private static final long serialVersionUID = 1L;

    /** Held for microseconds, never while parking. */
    final transient ReentrantLock lock = new ReentrantLock();
    /** Monotonic nanoseconds, {@link System#nanoTime()} but in tests. */
    final transient LongSupplier clock;
    /** The queue's length, written under the lock, for observers. */
    transient volatile int queued;
    /** Waiters refused as overdue by the CoDel discipline; written under the lock only. */
    transient volatile long shed;
    /**
     * The waiter a release last handed its slot to, until that waiter runs ({@link #resumed()}); {@code null} when
     * none. Read by the releasers' yields only, and changes nothing else. Every releaser yields while it is set, so a
     * hand-over meanwhile extends the yields of the releases before it until its own waiter runs, within each one's
     * bound: under a steady stream of hand-overs (hundreds of parked platform callers) releasers yield towards that
     * bound. At most one releaser per processor, yielding only until one's own waiter runs (stopping at the next
     * hand-over, or not), and not at all while more than 2B operations are admitted were each measured and not kept
     * (the pool-level admission benchmark, runs 18, 19 and 21–24: from 48 to 192 platform callers these yields keep a
     * call of the bound path at 0.60–0.76 × its time under HikariCP alone).
     */
    private transient volatile @Nullable Thread handedTo;

    HandOffCounts(GateConfig limits, LongSupplier clock) {
        super(limits);
        this.clock = clock;
    }

    /** Under the lock: whether a queued waiter may be served now (under a cap per flow, not every one may). */
    abstract boolean anyToServe();

    /** Under the lock, the judgement brought up to {@code now}: refuses the waiters the discipline judges overdue. */
    abstract void shedOverdue(long now);

    /** Under the lock, the slot taken for it: hands it to the waiter the discipline picks, and returns its thread. */
    abstract Thread grantNext(long now);

    /** The CoDel discipline's judgement of the queue, or {@code null} when none is kept. */
    abstract @Nullable StandingQueue judge();

    /**
     * A running operation ends. With nobody admitted but not running, one compare-and-set as under FIFO; otherwise
     * its slot goes to the waiter the discipline picks — and the releaser then yields until that waiter runs, as
     * {@link AdmissionCounts#yieldWhileHandOverPending()} bounds it — or back when nobody is queued or B is exceeded.
     */
    @Override
    final void finishRunning() {
        long word = getState();
        if (admitted(word) == running(word) && compareAndSetState(word, word - ONE_OPERATION)) {
            return;
        }
        lock.lock();
        try {
            long now = clock.getAsLong();
            advance(now);
            shedOverdue(now);
            if (anyToServe() && running(getState()) <= limits().maxConcurrent()) {
                // The slot changes hands: one admitted fewer, as many running.
                leaveQueue();
                handedTo = grantNext(now);
            } else {
                tryReleaseShared(ONE_OPERATION);
                return;
            }
        } finally {
            lock.unlock();
        }
        yieldWhileHandOverPending();
    }

    /** Whether the waiter last handed a slot has yet to run. */
    @Override
    final boolean handOverPending() {
        return handedTo != null;
    }

    /** A waiter's wait ended, however: a release yielding for it may stop. */
    final void resumed() {
        if (handedTo == Thread.currentThread()) {
            handedTo = null;
        }
    }

    /** Gives the places back, and hands any room to waiters that joined after a grow meanwhile. */
    @Override
    final void giveBackPlaces(int running, int waiting) {
        tryReleaseShared((long) running * ONE_OPERATION + (long) waiting * ONE_ADMITTED);
        serveFreeSlots();
    }

    /** Replaces the limits, and hands any new room to queued waiters. */
    @Override
    final void changeLimits(GateConfig resized) {
        super.changeLimits(resized);
        serveFreeSlots();
    }

    /** Under the lock: serves queued waiters while slots are free (after a grow, or a release that found none). */
    final void grantFreeSlots(long now) {
        while (anyToServe() && tryAcquireShared(0L) >= 0) {
            grantNext(now);
        }
    }

    /** Under the lock: brings the CoDel judgement, if any, up to {@code now}; call before any event at that time. */
    final void advance(long now) {
        StandingQueue standing = judge();
        if (standing != null) {
            standing.advance(now);
        }
    }

    @Override
    final int parkedWaiters() {
        return queued;
    }

    /**
     * The judgement brought up to now when the lock is free (an observer never waits for it): a queue that drained
     * and then saw no event is not reported standing after the interval ends. Always false without a judgement.
     */
    @Override
    final boolean standing() {
        StandingQueue standing = judge();
        if (standing == null) {
            return false;
        }
        if (lock.tryLock()) {
            try {
                standing.advance(clock.getAsLong());
            } finally {
                lock.unlock();
            }
        }
        return standing.standing();
    }

    @Override
    final long shedCount() {
        return shed;
    }

    /** Takes the lock to serve queued waiters while slots are free. */
    private void serveFreeSlots() {
        lock.lock();
        try {
            long now = clock.getAsLong();
            advance(now);
            grantFreeSlots(now);
        } finally {
            lock.unlock();
        }
    }
}
