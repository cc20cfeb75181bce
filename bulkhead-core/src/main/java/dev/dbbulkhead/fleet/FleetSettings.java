package dev.dbbulkhead.fleet;

import java.time.Duration;
import java.util.Objects;

/**
 * How one member takes part in the fleet.
 *
 * @param memberId  unique among the fleet's live members
 * @param weight    its relative size in the fair split, at least 1
 * @param demand    the most connections it can use (its pool's configured maximum), at least 1
 * @param floor     the connections it uses without a lease (before its first grant, after its lease lapsed), at
 *                  least 1 and at most {@code demand}; not part of the leased budget
 * @param heartbeat how often it renews its lease, positive
 * @param leaseTtl  how long a lease lasts unrenewed, at least two heartbeats
 */
public record FleetSettings(String memberId, int weight, int demand, int floor, Duration heartbeat,
                            Duration leaseTtl) {

    /** Default heartbeat: often enough to follow scaling within seconds, seldom enough to cost nothing. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);
    /** Default lease ttl: a dead member's share returns five seconds after its last renewal. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(5);
    /** Default weight: equal shares. */
    public static final int DEFAULT_WEIGHT = 1;

    public FleetSettings {
        if (memberId == null || memberId.isBlank()) {
            throw new IllegalArgumentException("member id must not be blank, was '" + memberId + "'");
        }
        Objects.requireNonNull(heartbeat, "heartbeat");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be between 1 and " + Integer.MAX_VALUE + ", was " + weight);
        }
        if (demand < 1) {
            throw new IllegalArgumentException("demand must be between 1 and " + Integer.MAX_VALUE + ", was " + demand);
        }
        if (floor < 1 || floor > demand) {
            throw new IllegalArgumentException("floor must be between 1 and the pool's maximum size " + demand
                    + ", was " + floor);
        }
        if (heartbeat.isNegative() || heartbeat.isZero() || heartbeat.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("heartbeat must be above 0s and at most 1 day, was " + heartbeat);
        }
        if (leaseTtl.compareTo(heartbeat.multipliedBy(2)) < 0 || leaseTtl.compareTo(Duration.ofDays(2)) > 0) {
            throw new IllegalArgumentException("lease ttl must be at least two heartbeats (" + heartbeat.multipliedBy(2)
                    + ") and at most 2 days, was " + leaseTtl);
        }
    }

    /**
     * How often the member checks its own lease, and twice the margin by which it stops using a share before the
     * coordinator's clock would let others take it: a tenth of the lease ttl, at least a millisecond.
     */
    public Duration leaseCheck() {
        Duration tenth = leaseTtl.dividedBy(10);
        return tenth.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : tenth;
    }
}
