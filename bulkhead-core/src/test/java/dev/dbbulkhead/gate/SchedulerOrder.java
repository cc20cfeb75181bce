package dev.dbbulkhead.gate;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The gate's own order in the simulation: {@link WaitingWork} and its displacement choice, asked exactly as
 * {@link ScheduledCounts} and {@link RuledEntry} ask them, with each flow's ticket as {@link RuledEntry} makes it.
 */
final class SchedulerOrder implements SimulatedOrder {

    private final WaitingWork<SimulatedOperation> work;
    private final WaitingWork.Ticket[] fresh;
    private final WaitingWork.Ticket[] inProgress;

    SchedulerOrder(List<SimulatedFlow> flows, AdmissionRules rules) {
        work = new WaitingWork<>(rules.keySlots(), rules.maxRunningPerKey());
        fresh = new WaitingWork.Ticket[flows.size()];
        inProgress = new WaitingWork.Ticket[flows.size()];
        for (int i = 0; i < flows.size(); i++) {
            SimulatedFlow flow = flows.get(i);
            String key = rules.fairShares() ? flow.key() : rules.keylessKey();
            fresh[i] = new WaitingWork.Ticket(flow.criticality(), false, key, rules.weightOf(key));
            inProgress[i] = new WaitingWork.Ticket(flow.criticality(), rules.inProgressFirst(), key,
                    rules.weightOf(key));
        }
    }

    private WaitingWork.Ticket ticketOf(SimulatedOperation operation) {
        return (operation.inProgress ? inProgress : fresh)[operation.flow];
    }

    @Override
    public void add(SimulatedOperation operation) {
        operation.handle = work.add(ticketOf(operation), operation);
    }

    @Override
    public SimulatedOperation next() {
        WaitingWork.Waiter<SimulatedOperation> next = work.peekNext();
        work.granted(next);
        return next.owner;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void remove(SimulatedOperation operation) {
        work.remove((WaitingWork.Waiter<SimulatedOperation>) operation.handle);
    }

    @Override
    public @Nullable SimulatedOperation displace(SimulatedOperation newcomer) {
        WaitingWork.Waiter<SimulatedOperation> last = work.displacedBy(ticketOf(newcomer));
        if (last == null) {
            return null;
        }
        work.remove(last);
        add(newcomer);
        return last.owner;
    }

    @Override
    public boolean isEmpty() {
        return work.isEmpty();
    }

    /** Flows the order remembers: bounded by its waiters and the rules' key slots. */
    int flowsKnown() {
        return work.flowsKnown();
    }
}
