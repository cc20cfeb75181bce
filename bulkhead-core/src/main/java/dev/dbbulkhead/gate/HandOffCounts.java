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
    HandOffCounts(GateConfig limits, LongSupplier clock) {
        super(limits);
        this.clock = clock;
    }

    /** Under the lock: whether a queued waiter may be served now (under a cap per flow, not every one may). */
    abstract boolean anyToServe();

    /** Under the lock, the judgement brought up to {@code now}: refuses the waiters the discipline judges overdue. */
    abstract void shedOverdue(long now);

    /** Under the lock, the slot taken for it: hands it to the waiter the discipline picks, and returns its wait. */
    abstract HandedWait grantNext(long now);

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
        HandedWait handedTo;
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
        yieldWhileHandOverPending(handedTo);
    }

    /**
     * Whether {@code handedTo}, the wait this very release handed its slot to, has yet to run: each release yields for
     * its own waiter only. Why not for any hand-over pending: releases that yielded while the latest hand-over's waiter
     * had yet to run never stopped under a stream of hand-overs, and the kernel puts a thread that yields in a loop
     * last (Linux's EEVDF pushes its deadline back a slice a yield) — the path-cost harness saw 8 of 24, 48 of 64 and
     * 240 of 256 platform callers make no call for whole windows, calls of up to 10 s, while the others ran (runs 25–28
     * of the pool-level admission benchmark).
     */
    @Override
    final boolean handOverPending(@Nullable HandedWait handedTo) {
        return handedTo != null && handedTo.yetToRun();
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
