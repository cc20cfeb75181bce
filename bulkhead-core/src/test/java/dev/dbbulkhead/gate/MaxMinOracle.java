package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What any order could do for the flows under their share, run beside the real order on the same arrivals and the
 * same places: told every flow's max-min share in advance (no real order is), it serves by criticality and then
 * strictly the flows asking no more than their share first, each class oldest first — earliest deadline first, as
 * every wait is as long — and at a full queue lets such a flow's newcomer take the place of the newest waiter of a flow
 * over its share. It keeps the gate's priorities — criticality, and with the rules' in progress first a request in
 * progress before a new one (without the gate's bound on runs) — as they are configuration, not fairness; it shares
 * the gate's counts and places.
 */
final class MaxMinOracle implements SimulatedOrder {

    /** Per lane (criticality, then in progress before new), the waiters of flows within their share, then of the
     *  others; each oldest first. */
    private final List<LinkedHashSet<SimulatedOperation>> within;
    private final List<LinkedHashSet<SimulatedOperation>> beyond;
    private final boolean[] flowWithin;
    private final Criticality[] criticality;
    private final boolean inProgressFirst;
    private int size;

    MaxMinOracle(List<SimulatedFlow> flows, MaxMinShares shares, boolean inProgressFirst) {
        this.inProgressFirst = inProgressFirst;
        int levels = 2 * Criticality.values().length;
        within = new ArrayList<>(levels);
        beyond = new ArrayList<>(levels);
        for (int i = 0; i < levels; i++) {
            within.add(new LinkedHashSet<>());
            beyond.add(new LinkedHashSet<>());
        }
        flowWithin = new boolean[flows.size()];
        criticality = new Criticality[flows.size()];
        for (int i = 0; i < flows.size(); i++) {
            flowWithin[i] = shares.within(i);
            criticality[i] = flows.get(i).criticality();
        }
    }

    private int laneOf(SimulatedOperation operation) {
        int lane = 2 * criticality[operation.flow].ordinal();
        return inProgressFirst && operation.inProgress ? lane : lane + 1;
    }

    private LinkedHashSet<SimulatedOperation> setOf(SimulatedOperation operation) {
        return (flowWithin[operation.flow] ? within : beyond).get(laneOf(operation));
    }

    @Override
    public void add(SimulatedOperation operation) {
        setOf(operation).add(operation);
        size++;
    }

    @Override
    public SimulatedOperation next() {
        for (int level = 0; level < within.size(); level++) {
            LinkedHashSet<SimulatedOperation> first = within.get(level).isEmpty() ? beyond.get(level) : within.get(level);
            if (!first.isEmpty()) {
                SimulatedOperation next = first.removeFirst();
                size--;
                return next;
            }
        }
        throw new IllegalStateException("nobody waits");
    }

    @Override
    public void remove(SimulatedOperation operation) {
        if (setOf(operation).remove(operation)) {
            size--;
        }
    }

    @Override
    public @Nullable SimulatedOperation displace(SimulatedOperation newcomer) {
        int own = laneOf(newcomer);
        for (int level = within.size() - 1; level >= own; level--) {
            LinkedHashSet<SimulatedOperation> victims = beyond.get(level).isEmpty() && level > own
                    ? within.get(level) : beyond.get(level);
            boolean mayTake = level > own || flowWithin[newcomer.flow];
            if (mayTake && !victims.isEmpty()) {
                SimulatedOperation displaced = victims.removeLast();
                size--;
                add(newcomer);
                return displaced;
            }
        }
        return null;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }
}
