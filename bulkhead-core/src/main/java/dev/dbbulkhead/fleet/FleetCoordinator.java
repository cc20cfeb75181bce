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

    /**
     * What the coordinator heard of the fleet since the member's last renewal, as far as it can tell without asking
     * anyone. Never blocks on the coordinator's store.
     * <ul>
     *   <li>{@link FleetNews#MAY_HAVE_CHANGED} when a member joined, left or was fenced, when the total moved without
     *       its value being announced, or when the coordinator cannot tell: the member renews.</li>
     *   <li>{@link FleetNews#UNCHANGED} only when it heard of no change and would have heard of one: a member whose
     *       share is settled lets heartbeats pass without renewing while its lease has time left, so that a large
     *       fleet's renewals cost the same as a small one's.</li>
     *   <li>{@link FleetNews.TotalMoved} when only the total moved, announced with its value (from 1 to the budget): a
     *       resting member lowers its use to its target of that total at once, and renews only when the target is
     *       more than its lease grants, so that a total moving every heartbeat costs a large fleet no renewal per
     *       member.</li>
     * </ul>
     * The answer is whole, so that a coordinator that wraps another forwards all of it or none: the default, which a
     * wrapper that forwards nothing keeps, is {@link FleetNews#MAY_HAVE_CHANGED} — a renewal every heartbeat.
     */
    default FleetNews newsFor(String memberId) {
        return FleetNews.MAY_HAVE_CHANGED;
    }

    /**
     * Whether {@link #newsFor} can answer other than {@link FleetNews#MAY_HAVE_CHANGED}: whether every change of the
     * fleet is announced to this coordinator. Only then does a settled member of a large fleet renew less often than
     * every heartbeat, with a lease ttl as many times longer. The default does not announce.
     */
    default boolean announcesChanges() {
        return false;
    }
}
