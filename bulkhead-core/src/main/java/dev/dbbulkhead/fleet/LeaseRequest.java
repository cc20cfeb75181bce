package dev.dbbulkhead.fleet;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a member asks for when it renews its lease.
 *
 * @param memberId         unique among the fleet's live members
 * @param weight           its relative size in the fair split, at least 1
 * @param demand           the most connections it can use (its pool's configured maximum), at least 1
 * @param connectionsInUse the most connections it may be using right now: the share it applies, or more while
 *                         work admitted under a larger one drains; a shrinking grant never goes below it
 * @param leaseTtl         how long the renewed lease lasts on the coordinator's clock, positive
 * @param sessionName      the {@code application_name} of the member's sessions on the server, ended once its lease
 *                         expired ({@link FleetSettings#sessionName()}), of the
 *                         {@linkplain FleetSettings#isMemberSessionName member form}; null when they carry none of
 *                         their own
 */
public record LeaseRequest(String memberId, int weight, int demand, int connectionsInUse, Duration leaseTtl,
                           @Nullable String sessionName) {

    public LeaseRequest {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        if (weight < 1 || demand < 1 || connectionsInUse < 0 || leaseTtl.isNegative() || leaseTtl.isZero()) {
            throw new IllegalArgumentException("weight and demand must be at least 1, connections in use at least 0"
                    + " and the lease ttl positive, were " + weight + ", " + demand + ", " + connectionsInUse
                    + ", " + leaseTtl);
        }
        if (sessionName != null && !FleetSettings.isMemberSessionName(sessionName)) {
            throw new IllegalArgumentException("session name must be of the member form '[<application> ]"
                    + "(db-bulkhead member <tag>)', was '" + sessionName + "'");
        }
    }
}
