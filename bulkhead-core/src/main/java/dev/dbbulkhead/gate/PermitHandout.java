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
     * What an admission holds while it waits or is handed its permit: what it gives back if it leaves without one.
     * Told once, by how its wait ended.
     */
    private enum Holding {
        RUNNING_SLOT, LENT_PLACE, QUEUE_PLACE, NOTHING;

        static Holding after(AdmissionCounts.WaitEnd end) {
            return switch (end) {
                case RUNNING -> RUNNING_SLOT;
                case BORROWED -> LENT_PLACE;
                // Still admitted: its queue place is its own to give back.
                case TIMED_OUT, SHED -> QUEUE_PLACE;
                // Its place went to a newcomer, which holds it now.
                case DISPLACED_BY_CRITICALITY, DISPLACED_BY_PROGRESS, DISPLACED_BY_SHARE -> NOTHING;
            };
        }

        boolean mayRun() {
            return this == RUNNING_SLOT || this == LENT_PLACE;
        }
    }

    /**
     * For an admitted operation: waits for its execution permit if it has none yet ({@code wait} is its wait, or
     * {@code null} when it runs already), then hands out the permit or gives back what it took. {@code countedFlow} is
     * the flow its running is counted in, or {@code null} where flows count nothing running. Kept apart so that the
     * entry stays small enough to be inlined, and an immediate refusal is thrown and caught in one compiled frame.
     */
    Permit waitToRun(ThreadRecord held, AdmissionCounts.@Nullable Wait wait, @Nullable String countedFlow,
                     EntryTimes times) {
        if (shutdown.refuses(held)) {
            // Admitted as the gate began to shut down: it leaves before it waits, as if it had never entered. A later
            // operation of a unit of work in progress stays: the shutdown lets those finish.
            throw refuseAdmittedWhileShuttingDown(wait, countedFlow);
        }
        boolean clocked = reports.timed() || times.hasDeadline();
        Holding holding = wait == null ? Holding.RUNNING_SLOT : Holding.QUEUE_PLACE;
        boolean shed = false;
        boolean handedOut = false;
        RejectionReason refusal = RejectionReason.QUEUE_TIMEOUT;
        long waitedNanos = 0L;
        try {
            if (wait != null) {
                reports.waitStarted();
                AdmissionCounts.WaitEnd end = wait.await(times.maxWaitNanos());
                holding = Holding.after(end);
                shed = end == AdmissionCounts.WaitEnd.SHED;
                RejectionReason displacedAs = end.displacedAs();
                if (displacedAs != null) {
                    refusal = displacedAs;
                }
            }
            long now = clocked ? System.nanoTime() : 0L;
            waitedNanos = now - times.waitStart();
            long deadlineNanos = times.deadlineNanos();
            if (holding.mayRun() && times.hasDeadline() && !times.deadlinePassed(now)
                    && deadlineNanos - now < holdTimes.medianNanos()) {
                // The wait left some time, less than an operation usually needs: not overload, too late to start.
                refusal = RejectionReason.INSUFFICIENT_TIME;
            } else if (holding.mayRun() && !times.deadlinePassed(now)) {
                // On its own execution permit a lender's operation takes its ledger place too; on a lent place it
                // holds one already.
                boolean lends = holding == Holding.RUNNING_SLOT && places.lends();
                boolean placed = !lends || places.takeOwn(times.hasDeadline(), deadlineNanos);
                if (lends && clocked) {
                    // A wait for the ledger place is a wait to run: the hold starts once the place is had.
                    now = System.nanoTime();
                    waitedNanos = now - times.waitStart();
                }
                if (placed) {
                    Permit fresh = new Permit(release, held, now, deadlineNanos, times.hasDeadline(),
                            holding == Holding.RUNNING_SLOT ? places.ownPermitPlace() : PoolPlaces.BORROWED_PLACE,
                            countedFlow);
                    Permit permit = times.hasDeadline() ? held.holdUntil(fresh, deadlineNanos) : held.hold(fresh);
                    reports.admitted(waitedNanos);
                    handedOut = true;
                    return permit;
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            refusal = RejectionReason.INTERRUPTED;
            waitedNanos = clocked ? System.nanoTime() - times.waitStart() : 0L;
        } finally {
            if (!handedOut) {
                // Whichever way this call is leaving without a permit, give back what it took.
                held.clear();
                givePlacesBack(holding, countedFlow);
            }
        }
        // Told only now that the places are given back: a slow listener keeps none of them from other callers.
        if (shed) {
            reports.shed(waitedNanos);
        }
        throw reports.rejected(refusal, waitedNanos);
    }

    /**
     * Hands out the permit of an operation running on a borrowed place taken without waiting, which its release gives
     * back; counted in {@code countedFlow}, or {@code null} where flows count nothing running.
     */
    Permit borrowed(ThreadRecord held, @Nullable String countedFlow, EntryTimes times) {
        if (shutdown.refuses(held)) {
            givePlacesBack(Holding.LENT_PLACE, countedFlow);
            throw reports.rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
        }
        Permit fresh = new Permit(release, held, times.waitStart(), times.deadlineNanos(), times.hasDeadline(),
                PoolPlaces.BORROWED_PLACE, countedFlow);
        Permit permit = times.hasDeadline() ? held.holdUntil(fresh, times.deadlineNanos()) : held.hold(fresh);
        reports.admitted(0L);
        return permit;
    }

    /**
     * Gives back the places an admission took (its execution permit when {@code wait} is {@code null}, else its queue
     * place, unless a place or a displacement came to it meanwhile) when it found the gate shutting down right after
     * taking them, and refuses it. Given back by the admitting thread, once, before it was handed a permit or told
     * anyone it was admitted.
     */
    BulkheadRejectedException refuseAdmittedWhileShuttingDown(AdmissionCounts.@Nullable Wait wait,
                                                              @Nullable String countedFlow) {
        givePlacesBack(wait == null ? Holding.RUNNING_SLOT : Holding.after(wait.withdraw()), countedFlow);
        return reports.rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
    }

    /**
     * Gives back what an admission that leaves without a permit holds — a run counted in {@code countedFlow} told to
     * its flow too; then opens the gate's drain if that emptied a gate shutting down.
     */
    private void givePlacesBack(Holding holding, @Nullable String countedFlow) {
        switch (holding) {
            case RUNNING_SLOT -> {
                if (countedFlow == null) {
                    counts.finishRunning();
                } else {
                    counts.finishRunning(countedFlow);
                }
            }
            case LENT_PLACE -> {
                places.giveBackBorrowed();
                if (countedFlow != null) {
                    counts.finishBorrowed(countedFlow);
                }
            }
            case QUEUE_PLACE -> counts.leaveQueue();
            case NOTHING -> {
                // A newcomer took its place over: nothing of it is left to give back.
            }
        }
        shutdown.signalIfDrained();
    }
}
