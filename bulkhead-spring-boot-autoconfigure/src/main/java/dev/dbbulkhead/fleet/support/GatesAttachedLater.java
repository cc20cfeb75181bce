package dev.dbbulkhead.fleet.support;

import dev.dbbulkhead.fleet.GateShares;
import dev.dbbulkhead.fleet.ShareTarget;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The gates' part of the share for a member that joins before the gates exist: the member joins before anything
 * borrows a connection at start-up, and the gates are built later, with the transaction managers that start-up
 * prepares. Remembers the last share applied and gives it to the gates once they are attached.
 */
final class GatesAttachedLater implements ShareTarget {

    private final ReentrantLock lock = new ReentrantLock();
    private @Nullable GateShares gates;
    /** The last share applied; 0 before the first. */
    private int connections;

    @Override
    public boolean apply(int connections) {
        lock.lock();
        try {
            this.connections = connections;
            return gates == null || gates.apply(connections);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Attaches the gates and bounds them by the share applied so far, if any.
     *
     * @return whether the gates can serve with that share (false when they outnumber its connections); true before
     *         any share was applied
     */
    boolean attach(GateShares gates) {
        lock.lock();
        try {
            if (this.gates != null) {
                throw new IllegalStateException("the gates are attached already");
            }
            this.gates = gates;
            return connections == 0 || gates.apply(connections);
        } finally {
            lock.unlock();
        }
    }
}
