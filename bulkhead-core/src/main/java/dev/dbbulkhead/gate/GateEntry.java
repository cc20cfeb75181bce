package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import org.jspecify.annotations.Nullable;

/**
 * Every admission the fast path of {@link AdmissionGate#acquire()} does not finish: one with a deadline, one a
 * listener times, one under {@link AdmissionRules} or that may borrow (both {@link RuledEntry}), one that finds no
 * execution permit free. It refuses what must be refused before a place is taken, takes a place — running, queued
 * or borrowed — and leaves the wait and the permit to {@link PermitHandout}.
 */
final class GateEntry {

    /** The ticket of every waiter of a gate without rules, whose counts wait in arrival order and do not read it. */
    private static final WaitingWork.Ticket UNRULED = new WaitingWork.Ticket(Criticality.DEFAULT, false, "", 1);

    private final GateShutdown shutdown;
    private final AdmissionCounts counts;
    private final PoolPlaces places;
    private final GateReports reports;
    private final PermitHandout handout;
    /**
     * The entry under admission rules or for a borrower, or {@code null} when the configuration has neither: then
     * nothing reads them.
     */
    private final @Nullable RuledEntry ruled;
    /** What this workload's operations with a deadline usually need: admissions with less left are refused. */
    private final HoldTimes holdTimes;
    private final AbandonedPermits abandoned;
    private final long queueWaitNanos;

    GateEntry(GateConfig config, AdmissionCounts counts, PoolPlaces places, GateReports reports,
              GateShutdown shutdown, GateRelease release) {
        this.shutdown = shutdown;
        this.counts = counts;
        this.places = places;
        this.reports = reports;
        this.holdTimes = release.holdTimes();
        this.abandoned = release.abandoned();
        this.handout = new PermitHandout(counts, places, reports, shutdown, release);
        AdmissionRules rules = config.admissionRules();
        this.ruled = rules.isNone() && !places.borrows() ? null
                : new RuledEntry(rules, counts, places, abandoned, reports, handout);
        this.queueWaitNanos = config.queueWait().toNanos();
    }

    /** Admits an operation without a deadline, waiting at most the queue wait. */
    Permit admit(ThreadRecord held) {
        return admitAndWait(held, queueWaitNanos, 0L, false);
    }

    /**
     * Admits an operation that must have its execution permit before {@code deadlineNanos}: refused at once, before
     * any place is taken, with {@link RejectionReason#INSUFFICIENT_TIME} when less is left than the workload's recent
     * operations with a deadline held their permits (their median), or nothing at all (unless the thread is
     * interrupted, which is refused as such); otherwise it waits at most the smaller of the queue wait and the time
     * left.
     */
    Permit admitBefore(ThreadRecord held, long entry, long deadlineNanos) {
        refuseIfShuttingDown(held);
        long leftNanos = deadlineNanos - entry;
        // Nothing left, or less than the workload's operations usually take: it could only time out in the database.
        if (leftNanos < Math.max(1L, holdTimes.medianNanos()) && !Thread.currentThread().isInterrupted()) {
            throw reports.rejected(RejectionReason.INSUFFICIENT_TIME, GateListener.NEVER_ADMITTED);
        }
        // A later operation of a request admitted once waits within the request's deadline, not the queue wait: the
        // request is half done, and giving it up at the queue wait would waste what it did.
        long maxWaitNanos = held.unitInProgress() && held.hasRequestDeadline() ? leftNanos
                : Math.min(queueWaitNanos, leftNanos);
        return admitAndWait(held, maxWaitNanos, deadlineNanos, true);
    }

    /** Refuses an operation the fast path admitted as the gate began to shut down, its place given back. */
    BulkheadRejectedException refuseRunningWhileShuttingDown() {
        return handout.refuseAdmittedWhileShuttingDown(null, null);
    }

    /**
     * Refuses an interrupted caller or a gate shutting down before any place is taken, then takes one by the gate's
     * rules. Kept out of {@link AdmissionGate#acquire()} so that it stays small enough to be inlined into its caller.
     */
    private Permit admitAndWait(ThreadRecord held, long maxWaitNanos, long deadlineNanos, boolean hasDeadline) {
        if (Thread.currentThread().isInterrupted()) {
            // Checked before the counts are touched, as Semaphore does: an interrupted caller never holds, even for
            // a moment, a place that a caller arriving meanwhile would then be refused for.
            throw reports.rejected(RejectionReason.INTERRUPTED, GateListener.NEVER_ADMITTED);
        }
        refuseIfShuttingDown(held);
        boolean clocked = reports.timed() || hasDeadline;
        EntryTimes times = new EntryTimes(clocked ? System.nanoTime() : 0L, maxWaitNanos, deadlineNanos, hasDeadline);
        if (ruled != null) {
            // Rules or borrowing: a path of its own, so that a gate with neither runs, and refuses, as before them.
            return ruled.admit(held, times);
        }
        if (runAtOnce()) {
            return handout.waitToRun(held, null, null, times);
        }
        if (!counts.tryJoinQueue()) {
            throw reports.rejected(RejectionReason.ADMISSION_FULL, GateListener.NEVER_ADMITTED);
        }
        return handout.waitToRun(held, counts.join(UNRULED), null, times);
    }

    /** Takes an execution permit at once if one is free, after giving back the places of owners that ended. */
    private boolean runAtOnce() {
        if (counts.tryRunAtOnce()) {
            return true;
        }
        // A permit whose owner thread ended without closing it held a place; it is back: ask again.
        return abandoned.giveBackPlacesOfEndedOwners() && counts.tryRunAtOnce();
    }

    /**
     * Refuses an admission that has not taken a place yet, once the gate is shutting down — unless it is a later
     * operation of a unit of work admitted before ({@link ThreadRecord#unitInProgress()}): a graceful shutdown lets the
     * requests in progress finish, and refuses only new ones.
     */
    private void refuseIfShuttingDown(ThreadRecord held) {
        if (shutdown.refuses(held)) {
            throw reports.rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
        }
    }
}
