package dev.dbbulkhead.fleet;

import java.util.List;

/**
 * A member's lease as the coordinator granted it.
 *
 * @param granted the connections the member may use until its lease expires
 * @param target  its fair share of the budget now; it grows towards it as others give theirs back, or shrinks to it
 * @param budget  the connections the whole fleet may use
 * @param members every member with an unexpired lease, this one included, in member-id order
 */
public record Lease(int granted, int target, int budget, List<FleetMemberState> members) {

    public Lease {
        members = List.copyOf(members);
    }
}
