package dev.dbbulkhead.gate;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * Changes the limits of one gate: each change reads, changes and replaces them as one step with respect to the
 * other changes, so that two operators changing one limit each never undo each other's change. Admissions and
 * releases never take its lock.
 */
final class GateResize {

    private final ReentrantLock lock = new ReentrantLock();
    private final AdmissionCounts counts;
    private final PoolPlaces places;

    GateResize(AdmissionCounts counts, PoolPlaces places) {
        this.counts = counts;
        this.places = places;
    }

    void apply(UnaryOperator<GateConfig.Builder> change) {
        lock.lock();
        try {
            counts.changeLimits(change.apply(counts.limits().toBuilder()).build());
        } finally {
            lock.unlock();
        }
        // What a lender lends follows its B.
        places.capacityChanged();
    }
}
