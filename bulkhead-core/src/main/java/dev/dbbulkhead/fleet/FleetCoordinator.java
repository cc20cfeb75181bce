package dev.dbbulkhead.fleet;

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
}
