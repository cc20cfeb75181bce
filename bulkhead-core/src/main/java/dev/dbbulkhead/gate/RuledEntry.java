package dev.dbbulkhead.gate;

import dev.dbbulkhead.RejectionReason;
import org.jspecify.annotations.Nullable;

/**
 * Entry into a gate with {@link AdmissionRules}, or one that borrows: runs at once when a place is free and nobody
 * waits, as without rules, within the places its criticality may take; a borrower with all its own places running and
 * nobody waiting runs on a place its pool lends; otherwise waits in the order of {@link WaitingWork} — criticality, a
 * request in progress, its flow's weighted use, arrival — for its own next free place or, in a borrower, the pool's
 * ({@link LendingPool}). With every place taken
 * (or every place its criticality may take), it takes the place of the last waiter of that order if it comes before
 * it, and is refused otherwise: {@link RejectionReason#SHED_BY_CRITICALITY} when only places held back for more
 * critical work were left, else as a gate without rules. Nobody is refused for a share while a place is free.
 */
final class RuledEntry {

    private final AdmissionRules rules;
    private final AdmissionCounts counts;
    private final PoolPlaces places;
    private final AbandonedPermits abandoned;
    private final GateReports reports;
    private final PermitHandout handout;
    /** Whether flows count what they run ({@link AdmissionRules#flowsCountRunning()}): then permits name their flow. */
    private final boolean capped;

    RuledEntry(AdmissionRules rules, AdmissionCounts counts, PoolPlaces places, AbandonedPermits abandoned,
               GateReports reports, PermitHandout handout) {
        this.rules = rules;
        this.counts = counts;
        this.places = places;
        this.abandoned = abandoned;
        this.reports = reports;
        this.handout = handout;
        this.capped = rules.flowsCountRunning();
    }

    Permit admit(ThreadRecord held, EntryTimes times) {
        OperationClass operation = held.operationClass();
        Criticality criticality = operation == null ? Criticality.DEFAULT : operation.criticality();
        // Counted in its flow whichever way it runs, where flows count what they run; otherwise its ticket is made only
        // if it waits.
        WaitingWork.Ticket counted = capped ? ticketOf(held, operation, criticality) : null;
        String countedFlow = counted == null ? null : counted.key();
        boolean borrowRefused = false;
        if (places.borrows() && counts.allRunningAndNobodyWaits()) {
            if (places.tryTakeBorrowed()) {
                if (counted == null || counts.tryCountRunning(counted)) {
                    return handout.borrowed(held, countedFlow, times);
                }
                // Its flow runs its cap: the lent place goes back, and it waits in the order below.
                places.giveBackBorrowed();
            } else {
                borrowRefused = places.belowCeiling();
            }
        }
        AdmissionCounts.Entry entry = counts.tryEnter(rules, criticality);
        if (!entry.admitted() && abandoned.giveBackPlacesOfEndedOwners()) {
            // A permit whose owner thread ended without closing it held a place: ask again.
            entry = counts.tryEnter(rules, criticality);
        }
        if (entry == AdmissionCounts.Entry.RUNNING) {
            // A flow running its cap waits instead, its slot given to the order.
            return handout.waitToRun(held, counted == null ? null : counts.startRunning(counted), countedFlow, times);
        }
        WaitingWork.Ticket ticket = counted != null ? counted : ticketOf(held, operation, criticality);
        if (entry == AdmissionCounts.Entry.WAITING) {
            AdmissionCounts.Wait queued = counts.join(ticket);
            // Queued after the look at the pool above: a place freed since then is offered to the queue now.
            places.queuedOperation();
            return handout.waitToRun(held, queued, countedFlow, times);
        }
        AdmissionCounts.Wait displacing = counts.displace(ticket);
        if (displacing == null) {
            throw reports.rejected(entry == AdmissionCounts.Entry.RESERVED ? RejectionReason.SHED_BY_CRITICALITY
                    : borrowRefused ? RejectionReason.BORROW_REFUSED : RejectionReason.ADMISSION_FULL,
                    GateListener.NEVER_ADMITTED);
        }
        return handout.waitToRun(held, displacing, countedFlow, times);
    }

    /**
     * What the operation waits as: its criticality, whether its request is in progress (an operation of it was
     * admitted and ended already, whether it wrote or only read, when the rules serve those first), and its flow — its key under fair shares, the rules' keyless key
     * for an operation without one, and one flow for every operation without fair shares.
     */
    private WaitingWork.Ticket ticketOf(ThreadRecord held, @Nullable OperationClass operation, Criticality criticality) {
        boolean inProgress = rules.inProgressFirst() && held.unitInProgress();
        String key = operation == null ? null : operation.keyOrNull();
        String flow = !rules.fairShares() || key == null ? rules.keylessKey() : key;
        return new WaitingWork.Ticket(criticality, inProgress, flow, rules.weightOf(flow));
    }
}
