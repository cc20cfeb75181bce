package dev.dbbulkhead.gate;

/**
 * Where a permit of one gate goes back to: the running slot or the ledger place it gives back, the drain it may open,
 * the hold times it adds to and the listener it tells. A {@link Permit} holds this, not the gate, so that nothing
 * inside the gate calls back up into its face.
 */
final class GateRelease {

    private final String workload;
    private final AdmissionCounts counts;
    private final PoolPlaces places;
    private final GateShutdown shutdown;
    private final GateReports reports;
    /** Somebody listens: releases and transactions are timed for it. Read here, where every release reads it. */
    private final boolean timed;
    /** What this workload's operations with a deadline usually need: admissions with less left are refused. */
    private final HoldTimes holdTimes = new HoldTimes();
    private final AbandonedPermits abandoned = new AbandonedPermits();

    GateRelease(String workload, AdmissionCounts counts, PoolPlaces places, GateShutdown shutdown,
                GateReports reports) {
        this.workload = workload;
        this.counts = counts;
        this.places = places;
        this.shutdown = shutdown;
        this.reports = reports;
        this.timed = reports.timed();
    }

    /**
     * Called once per permit ({@link Permit#close()} sees to it): by its owner thread, or by another thread once the
     * owner has ended without closing it.
     */
    void release(Permit permit) {
        ThreadRecord held = permit.holder();
        held.clear();
        byte pooled = permit.pooled();
        String flow = permit.countedFlow();
        if (pooled == PoolPlaces.BORROWED_PLACE) {
            places.giveBackBorrowed();
            if (flow != null) {
                counts.finishBorrowed(flow);
            }
        } else {
            if (pooled == PoolPlaces.OWN_PLACE) {
                // With its own operations queued, the execution permit goes to one of them, which takes this place
                // next: given back first, so that it finds it there when it wakes, and for the lender's own work alone.
                places.giveBackOwn(!counts.nobodyWaits());
            }
            if (flow == null) {
                counts.finishRunning();
            } else {
                counts.finishRunning(flow);
            }
        }
        shutdown.signalIfDrained();
        boolean hadDeadline = permit.hasDeadline();
        long heldNanos = timed || hadDeadline ? System.nanoTime() - permit.admittedAtNanos() : 0L;
        if (hadDeadline) {
            held.forgetPermitDeadline();
            holdTimes.record(heldNanos);
        }
        if (timed) {
            permit.reportReleased(reports, heldNanos);
        }
    }

    /**
     * Keeps {@code permit}, which another thread tried to close while its owner was alive, until it is given back:
     * by its owner (closing it, or entering a bulkhead again), or by the gate once the owner has ended.
     */
    void abandon(Permit permit) {
        abandoned.add(permit);
    }

    /** The workload of the gate. */
    String workload() {
        return workload;
    }

    /** Whether a listener is told of the gate's decisions: without one, nothing on its path takes a time stamp. */
    boolean isListenedTo() {
        return timed;
    }

    /** The hold times of the gate's recent operations with a deadline. */
    HoldTimes holdTimes() {
        return holdTimes;
    }

    /** The gate's permits that another thread than their owner tried to close. */
    AbandonedPermits abandoned() {
        return abandoned;
    }
}
