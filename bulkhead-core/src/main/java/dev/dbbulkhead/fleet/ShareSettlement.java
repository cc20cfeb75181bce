package dev.dbbulkhead.fleet;

import dev.dbbulkhead.share.WeightedShares;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How a renewal settles a member's grant, for any coordinator to apply inside its serialised step. Policy only.
 *
 * <p>The member's fair target is its {@link WeightedShares} part of the fleet's total among all unexpired leases.
 * Growing is limited to what no other unexpired lease holds of the total, so the grants never add up to more than the
 * largest total they were granted from, never more than the budget; shrinking
 * stops at what the member still uses, so a share is given back only once the member has let go of it
 * (shrink before grow). Connections still held on the server by members whose lease expired but whose sessions are
 * not yet ended are {@code reserved}: nobody grows into them.
 */
final class ShareSettlement {

    private ShareSettlement() {
    }

    /**
     * Another member holding an unexpired lease.
     *
     * @param memberId its id
     * @param weight   its weight
     * @param demand   the most it can use
     * @param granted  what its lease grants
     */
    public record Holder(String memberId, int weight, int demand, int granted) {
    }

    /**
     * The renewing member's new grant.
     *
     * @param granted what its lease grants from now on
     * @param target  its fair share
     */
    public record Settled(int granted, int target) {
    }

    /**
     * @param total      what the fleet may use now: its budget, or less while the total follows the database
     * @param others     the other members with unexpired leases
     * @param request    the renewal
     * @param ownGranted what the renewing member's lease granted until now; 0 when it joins
     * @param reserved   the grants of expired leases whose sessions are still open on the server
     */
    public static Settled settle(int total, List<Holder> others, LeaseRequest request, int ownGranted,
                                 int reserved) {
        List<Holder> members = new ArrayList<>(others);
        members.add(new Holder(request.memberId(), request.weight(), request.demand(), ownGranted));
        int target = targetOf(total, members, request.memberId());
        long othersGranted = others.stream().mapToLong(Holder::granted).sum();
        int free = (int) Math.max(0, Math.min(Integer.MAX_VALUE, total - othersGranted - reserved));
        if (target >= ownGranted && ownGranted <= free) {
            return new Settled(Math.min(target, free), target);
        }
        return new Settled(Math.max(Math.min(target, free), Math.min(ownGranted, request.connectionsInUse())), target);
    }

    /**
     * A member's fair target of {@code total}: its {@link WeightedShares} part among {@code members}, split in
     * member-id order, as a settlement computes it. A member that hears the fleet's total moved computes its new
     * target with this from the fleet its last settlement saw, so that it splits exactly as a renewal would.
     *
     * @param members every member with an unexpired lease, {@code memberId} among them, in any order
     * @return the target; -1 when {@code memberId} is not among {@code members}
     */
    static int targetOf(int total, List<Holder> members, String memberId) {
        List<Holder> inIdOrder = new ArrayList<>(members);
        inIdOrder.sort(Comparator.comparing(Holder::memberId));
        int[] targets = WeightedShares.split(Math.max(0, total), inIdOrder.stream()
                .map(member -> new WeightedShares.Claim(member.weight(), member.demand())).toList());
        for (int i = 0; i < inIdOrder.size(); i++) {
            if (inIdOrder.get(i).memberId().equals(memberId)) {
                return targets[i];
            }
        }
        return -1;
    }
}
