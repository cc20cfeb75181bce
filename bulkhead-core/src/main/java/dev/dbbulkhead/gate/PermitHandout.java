package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import org.jspecify.annotations.Nullable;

/**
 * The end of every admission the fast path does not finish: an admitted operation waits for its execution permit if
 * it has none yet (and, in a lender, for its place on the pool's ledger), then is handed its permit — or gives back
 * what it took and is refused, the listener told only once the places are back.
 */
final class PermitHandout {

    private final AdmissionCounts counts;
    private final PoolPlaces places;
    private final GateReports reports;
    private final GateShutdown shutdown;
    /** Where the permits handed out go back to. */
    private final GateRelease release;
    private final HoldTimes holdTimes;

    PermitHandout(AdmissionCounts counts, PoolPlaces places, GateReports reports, GateShutdown shutdown,
                  GateRelease release) {
        this.counts = counts;
        this.places = places;
        this.reports = reports;
        this.shutdown = shutdown;
        this.release = release;
        this.holdTimes = release.holdTimes();
    }

    /**
     * For an admitted operation: waits for its execution permit if it has none yet, then hands out the permit or
     * gives back what it took. Kept apart so that the entry stays small enough to be inlined, and an immediate refusal
     * is thrown and caught in one compiled frame.
     */
    Permit waitToRun(ThreadRecord held, boolean runningAlready, ScheduledCounts.@Nullable Queued queued,
                     long waitStart, long maxWaitNanos, long deadlineNanos, boolean hasDeadline) {
        if (shutdown.refuses(held)) {
            // Admitted as the gate began to shut down: it leaves before it waits, as if it had never entered. A later
            // operation of a unit of work in progress stays: the shutdown lets those finish.
            throw refuseAdmittedWhileShuttingDown(runningAlready, queued);
        }
        boolean timed = reports.timed();
        boolean clocked = timed || hasDeadline;
        boolean running = runningAlready;
        // Running on a place its pool lent it, taken for it while it was queued; it then holds no place of the gate.
        boolean onLentPlace = false;
        // Admitted and not running; false once its place went to another (displaced), when it has nothing to give.
        boolean holdsQueuePlace = !running;
        boolean handedOut = false;
        boolean shed = false;
        RejectionReason refusal = RejectionReason.QUEUE_TIMEOUT;
        long waitedNanos = 0L;
        try {
            if (!running) {
                reports.waitStarted();
                AdmissionCounts.WaitEnd end = queued == null ? counts.awaitRunning(maxWaitNanos)
                        : ((ScheduledCounts) counts).await(queued, maxWaitNanos);
                running = end == AdmissionCounts.WaitEnd.RUNNING;
                onLentPlace = end == AdmissionCounts.WaitEnd.BORROWED;
                RejectionReason displacedAs = end.displacedAs();
                holdsQueuePlace = !running && !onLentPlace && displacedAs == null;
                shed = end == AdmissionCounts.WaitEnd.SHED;
                if (displacedAs != null) {
                    refusal = displacedAs;
                }
            }
            long now = clocked ? System.nanoTime() : 0L;
            waitedNanos = now - waitStart;
            boolean mayRun = running || onLentPlace;
            if (mayRun && hasDeadline && now - deadlineNanos < 0 && deadlineNanos - now < holdTimes.medianNanos()) {
                // The wait left some time, less than an operation usually needs: not overload, too late to start.
                refusal = RejectionReason.INSUFFICIENT_TIME;
            } else if (mayRun && !(hasDeadline && now - deadlineNanos >= 0)) {
                // On its own execution permit a lender's operation takes its ledger place too; on a lent place it
                // holds one already.
                boolean lends = running && places.lends();
                boolean placed = !lends || places.takeOwn(hasDeadline, deadlineNanos);
                if (lends && clocked) {
                    // A wait for the ledger place is a wait to run: the hold starts once the place is had.
                    now = System.nanoTime();
                    waitedNanos = now - waitStart;
                }
                if (placed) {
                    Permit fresh = new Permit(release, held, now, deadlineNanos, hasDeadline,
                            running ? places.ownPermitPlace() : PoolPlaces.BORROWED_PLACE);
                    Permit permit = hasDeadline ? held.holdUntil(fresh, deadlineNanos) : held.hold(fresh);
                    reports.admitted(waitedNanos);
                    handedOut = true;
                    return permit;
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            refusal = RejectionReason.INTERRUPTED;
            waitedNanos = clocked ? System.nanoTime() - waitStart : 0L;
        } finally {
            if (!handedOut) {
                // Whichever way this call is leaving without a permit, give back what it took.
                held.clear();
                givePlacesBack(running, holdsQueuePlace, onLentPlace);
            }
        }
        // Told only now that the places are given back: a slow listener keeps none of them from other callers.
        if (shed) {
            reports.shed(waitedNanos);
        }
        throw reports.rejected(refusal, waitedNanos);
    }

    /** Hands out the permit of an operation running on a borrowed place, which its release gives back. */
    Permit borrowed(ThreadRecord held, long waitStart, long deadlineNanos, boolean hasDeadline) {
        if (shutdown.refuses(held)) {
            places.giveBackBorrowed();
            shutdown.signalIfDrained();
            throw reports.rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
        }
        Permit fresh = new Permit(release, held, waitStart, deadlineNanos, hasDeadline, PoolPlaces.BORROWED_PLACE);
        Permit permit = hasDeadline ? held.holdUntil(fresh, deadlineNanos) : held.hold(fresh);
        reports.admitted(0L);
        return permit;
    }

    /**
     * Gives back the places an admission took (an execution permit when {@code running}, else a queue place) when it
     * found the gate shutting down right after taking them, and refuses it. Given back by the
     * admitting thread, once, before it was handed a permit or told anyone it was admitted.
     */
    BulkheadRejectedException refuseAdmittedWhileShuttingDown(boolean running,
                                                               ScheduledCounts.@Nullable Queued queued) {
        if (queued == null) {
            givePlacesBack(running, !running, false);
        } else {
            // Queued already: taken out, unless a place or a displacement came to it meanwhile.
            AdmissionCounts.WaitEnd end = ((ScheduledCounts) counts).withdraw(queued);
            givePlacesBack(end == AdmissionCounts.WaitEnd.RUNNING, end == AdmissionCounts.WaitEnd.TIMED_OUT,
                    end == AdmissionCounts.WaitEnd.BORROWED);
        }
        return reports.rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
    }

    /**
     * Gives back the places of an admission that leaves without a permit: its execution permit when {@code running},
     * the place its pool lent it when {@code lentPlace}, else its queue place unless a newcomer took it over; then
     * opens the gate's drain if that emptied a gate shutting down.
     */
    private void givePlacesBack(boolean running, boolean queuePlace, boolean lentPlace) {
        if (running) {
            counts.finishRunning();
        } else if (lentPlace) {
            places.giveBackBorrowed();
        } else if (queuePlace) {
            counts.leaveQueue();
        }
        shutdown.signalIfDrained();
    }
}
