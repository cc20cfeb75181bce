package dev.dbbulkhead.fleet;

import java.util.OptionalInt;

/**
 * The one owner of a fleet's connection budget, shared by every instance: it keeps each member's lease and its
 * granted share, and never lets the shares of unexpired leases add up to more than the budget. The members' gates
 * and pools know nothing of it: {@link FleetMember} applies what it grants. Implementations serialise all renewals
 * of a fleet against each other and judge every lease on one clock of their own.
 */
public interface FleetCoordinator {

    /**
     * Renews the member's lease for {@link LeaseRequest#leaseTtl()} from the coordinator's own clock, joining the
     * fleet if the member holds no lease, and settles its granted share in one step, serialised with every other
     * renewal: expired leases are dropped first; a member above its fair target is lowered no further than
     * {@link LeaseRequest#connectionsInUse()}; a member below it grows by at most what no unexpired lease holds.
     *
     * @return the member's lease as granted, with the whole fleet as it stands
     * @throws FleetUnavailableException when the coordinator cannot be reached or the renewal failed; the member's
     *                                   lease and share are then as they were
     */
    Lease renew(LeaseRequest request);

    /**
     * Ends the member's lease and gives its share back at once. Call only once the member no longer uses it.
     *
     * @throws FleetUnavailableException when the coordinator cannot be reached; the lease then expires on its own
     */
    void leave(String memberId);

    /**
     * Whether the fleet may have changed since the member's last renewal — a member joined, left or was fenced, or
     * the fleet's total moved without its value being announced ({@link #announcedTotal}) — as far as the
     * coordinator can tell without asking anyone. A member whose share is settled lets heartbeats pass without
     * renewing while this answers no and its lease has time left, so that a large fleet's renewals cost the same as a
     * small one's. Never blocks on the coordinator's store.
     *
     * @return false only when the coordinator heard of no change since the member's last renewal and would hear of
     *         one; true when it cannot tell. The default cannot: the member renews every heartbeat
     */
    default boolean mayHaveChanged(String memberId) {
        return true;
    }

    /**
     * The fleet's newest total, when a move of it alone was announced with its value since the member's last renewal,
     * as heard by the last {@link #mayHaveChanged}; ask only after that answered no. A resting member follows it
     * without renewing: it lowers its use to its target of that total at once, and renews only when the target is more
     * than its lease grants, so that a total moving every heartbeat costs a large fleet no renewal per member. Never
     * blocks on the coordinator's store.
     *
     * @return a total from 1 to the budget; empty when none was announced with its value since. The default
     *         announces none
     */
    default OptionalInt announcedTotal(String memberId) {
        return OptionalInt.empty();
    }

    /**
     * Whether {@link #mayHaveChanged} can answer no: whether every change of the fleet is announced to this
     * coordinator. Only then does a settled member of a large fleet renew less often than every heartbeat, with a lease
     * ttl as many times longer. The default does not announce.
     */
    default boolean announcesChanges() {
        return false;
    }
}
