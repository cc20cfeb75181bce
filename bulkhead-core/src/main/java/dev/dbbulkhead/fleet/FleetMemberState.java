package dev.dbbulkhead.fleet;

import java.time.Duration;

/**
 * One member of the fleet as the coordinator sees it.
 *
 * @param memberId  its id
 * @param weight    its weight in the fair split
 * @param demand    the most connections it can use
 * @param granted   the connections its lease grants
 * @param target    its fair share when it last renewed
 * @param leaseAge  time since its last renewal, on the coordinator's clock
 * @param leaseLeft time until its lease expires, on the coordinator's clock
 */
public record FleetMemberState(String memberId, int weight, int demand, int granted, int target, Duration leaseAge,
                               Duration leaseLeft) {
}
