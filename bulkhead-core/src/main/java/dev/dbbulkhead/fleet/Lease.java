package dev.dbbulkhead.fleet;

import java.util.List;

/**
 * A member's lease as the coordinator granted it.
 *
 * @param granted the connections the member may use until its lease expires
 * @param target  its fair share of the budget now; it grows towards it as others give theirs back, or shrinks to it
 * @param budget  the most connections the whole fleet may ever use
 * @param total   the connections the whole fleet may use now, from 1 to the budget, the same for every member: the
 *                budget itself unless the fleet's total follows the database ({@link FleetTotals}); the targets
 *                split it
 * @param members every member with an unexpired lease, this one included, in member-id order, as the member's last
 *                settlement saw them: a renewal that finds the fleet unchanged keeps them, this member's lease renewed
 * @param fenced  the members whose lease had expired and whose sessions this renewal ended on the server before it
 *                settled any grant
 * @param ignored the rows of the coordinator's store that the renewal did not take for members of this fleet: neither
 *                counted, nor fenced, nor removed
 */
public record Lease(int granted, int target, int budget, int total, List<FleetMemberState> members,
                    List<Fenced> fenced, List<Ignored> ignored) {

    public Lease {
        if (total < 1 || total > budget) {
            throw new IllegalArgumentException("total must be from 1 to the budget " + budget + ", was " + total);
        }
        members = List.copyOf(members);
        fenced = List.copyOf(fenced);
        ignored = List.copyOf(ignored);
    }

    /**
     * A member fenced by a renewal: its lease had expired, and its sessions were ended before its share was granted
     * to anyone.
     *
     * @param memberId         its id
     * @param sessionsEnded    how many of its sessions the server was told to end
     * @param sessionsLeftOpen how many sessions of its name, in this database, belong to another role than the
     *                         coordinator's: they are not ended, and stay open, outside the budget, until they close
     * @param sessionsNotGone  how many of the sessions told to end were still on the server when the renewal stopped
     *                         waiting for them: while any are, the member's share stays withheld from everyone and a
     *                         later renewal looks again
     */
    public record Fenced(String memberId, int sessionsEnded, int sessionsLeftOpen, int sessionsNotGone) {

        /** Whether its share was freed by this renewal; false while some of its ended sessions are still open. */
        public boolean shareFreed() {
            return sessionsNotGone == 0;
        }
    }

    /**
     * A row the renewal did not take for a member of this fleet, because it disagrees with the renewing member's
     * configuration or does not have the form members write.
     *
     * @param memberId the row's member id, as written
     * @param reason   what disagrees, for the log
     */
    public record Ignored(String memberId, String reason) {
    }
}
