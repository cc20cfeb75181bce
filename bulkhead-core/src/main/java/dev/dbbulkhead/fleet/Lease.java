package dev.dbbulkhead.fleet;

import java.util.List;

/**
 * A member's lease as the coordinator granted it.
 *
 * @param granted the connections the member may use until its lease expires
 * @param target  its fair share of the budget now; it grows towards it as others give theirs back, or shrinks to it
 * @param budget  the connections the whole fleet may use
 * @param members every member with an unexpired lease, this one included, in member-id order
 * @param fenced  the members whose lease had expired and whose sessions this renewal ended on the server before it
 *                settled any grant
 */
public record Lease(int granted, int target, int budget, List<FleetMemberState> members, List<Fenced> fenced) {

    public Lease {
        members = List.copyOf(members);
        fenced = List.copyOf(fenced);
    }

    /** A lease whose renewal fenced nobody. */
    public Lease(int granted, int target, int budget, List<FleetMemberState> members) {
        this(granted, target, budget, members, List.of());
    }

    /**
     * A member fenced by a renewal: its lease had expired, and its sessions were ended before its share was granted
     * to anyone.
     *
     * @param memberId         its id
     * @param sessionsEnded    how many of its sessions the server ended
     * @param sessionsLeftOpen how many of its sessions the coordinator's role may not end: they stay open, outside
     *                         the budget, until they close
     */
    public record Fenced(String memberId, int sessionsEnded, int sessionsLeftOpen) {
    }
}
