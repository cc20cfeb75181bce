package dev.dbbulkhead.gate;

import org.jspecify.annotations.Nullable;

/** The order a simulated gate keeps its waiters in: the real scheduler's, or the oracle's. */
interface SimulatedOrder {

    void add(SimulatedOperation operation);

    /** Takes out the waiter served next; there is one. */
    SimulatedOperation next();

    /** Takes out a waiter that leaves unserved: its wait ran out. */
    void remove(SimulatedOperation operation);

    /**
     * With every place taken: takes out the waiter {@code newcomer} displaces and queues the newcomer in its place, or
     * returns {@code null} with nothing changed when the newcomer is the one to refuse.
     */
    @Nullable SimulatedOperation displace(SimulatedOperation newcomer);

    boolean isEmpty();
}
