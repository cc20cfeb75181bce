package dev.dbbulkhead.fleet;

import java.time.Duration;

/**
 * How many heartbeats a member whose share is settled lets pass between two renewals, and when it renews first after
 * a change. Policy only.
 *
 * <p>Every renewal wakes a session of the database the fleet protects, so a fleet whose members all renew every
 * heartbeat costs the server a round trip per member per heartbeat. A settled member's renewal only shows that it
 * lives: whatever changes the split (a join, a leave, a fence, a new total) the coordinator announces
 * ({@link FleetCoordinator#announcesChanges()}), and then every member renews at its next heartbeat. So in a fleet of
 * more than {@value #EVERY_HEARTBEAT_UP_TO} members each renews once every {@code ceil(members / }{@value
 * #FLEET_RENEWALS_PER_HEARTBEAT}{@code )} heartbeats, its lease ttl as many times longer, and the fleet renews about
 * {@value #FLEET_RENEWALS_PER_HEARTBEAT} times a heartbeat whatever its size.
 *
 * <p>The price: a member that stops without leaving (killed, frozen, cut off) returns its share only once that longer
 * lease has expired. A small fleet keeps the short lease, as each of its members holds a large part of the budget;
 * in a large one each member's share shrinks as the fleet grows, so the connections held back, times how long they
 * stay held back, no longer grow with its size.
 */
final class RenewalCadence {

    /** The largest fleet whose members renew every heartbeat. */
    static final int EVERY_HEARTBEAT_UP_TO = 5;
    /**
     * The renewals a larger settled fleet makes in a heartbeat, about: at the default heartbeat, one a second. A
     * renewal that wakes a session idle for many seconds cost a small server a few milliseconds of its CPU
     * (docs/benchmarks/fleet-scale.md), and the fleet's coordination should take under one percent of one core.
     */
    static final int FLEET_RENEWALS_PER_HEARTBEAT = 1;

    private RenewalCadence() {
    }

    /**
     * @param members  the fleet's members at the last renewal, the renewing one among them
     * @param leaseTtl the member's configured lease ttl
     * @return at least 1; never so many that the lease would last longer than {@link FleetSettings#MAX_LEASE_TTL}
     */
    static int heartbeatsPerRenewal(int members, Duration leaseTtl) {
        if (members <= EVERY_HEARTBEAT_UP_TO) {
            return 1;
        }
        long spread = ((long) members + FLEET_RENEWALS_PER_HEARTBEAT - 1) / FLEET_RENEWALS_PER_HEARTBEAT;
        long longest = Math.max(1, FleetSettings.MAX_LEASE_TTL.toNanos() / leaseTtl.toNanos());
        return (int) Math.min(spread, longest);
    }

    /**
     * The heartbeats after a renewal that a change brought about before the member renews again: from 1 to
     * {@code heartbeatsPerRenewal}, by its id. A change makes every member renew at once; each then keeps its own place
     * in the cycle, so that the fleet's renewals spread over it instead of coming all together.
     */
    static int heartbeatsAfterChange(String memberId, int heartbeatsPerRenewal) {
        int mixed = memberId.hashCode() * 0x9E3779B9;
        return 1 + Math.floorMod(mixed ^ (mixed >>> 16), heartbeatsPerRenewal);
    }
}
