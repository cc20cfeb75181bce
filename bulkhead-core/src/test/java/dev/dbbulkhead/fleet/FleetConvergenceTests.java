package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.share.WeightedShares;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The convergence bound, proven where it is deterministic: real {@link FleetMember}s settle through
 * {@link ShareSettlement} on a clock the test moves, each beating once per heartbeat in the order that is worst for
 * convergence (the member that waits for others beats first), while every member's pool is saturated, so that work
 * admitted under a larger share still holds connections when the member lowers its share. The integration test on
 * PostgreSQL cannot assert this bound without depending on how fast a loaded machine runs that work.
 *
 * <p>After each change the shares are the fair split within two heartbeats: a join (the others give back in the
 * first, the newcomer grows in the second), a clean leave and an expired lease (the others grow in the first).
 */
class FleetConvergenceTests {

    private static final int BUDGET = 12;
    private static final int POOL_SIZE = 10;
    private static final int FLOOR = 2;
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    private static final Duration LEASE_TTL = Duration.ofSeconds(10);
    private static final int MOST_HEARTBEATS_TO_CONVERGE = 2;
    /** How many times a member looks at its pool before the transactions admitted under the larger share finish. */
    private static final int LOOKS_UNTIL_DRAINED = 3;

    private final AtomicLong clock = new AtomicLong(1_000);
    private final InMemoryCoordinator coordinator = new InMemoryCoordinator();
    private final ManualScheduler scheduler = new ManualScheduler();
    /** The members that beat, in the order they beat in every heartbeat. */
    private final Map<String, FleetMember> live = new TreeMap<>();

    @AfterEach
    void shutDown() {
        scheduler.shutdownNow();
    }

    @Test
    void aNewcomerHasItsFairShareWithinTwoHeartbeatsWhileTheOthersStillRunWorkAdmittedUnderTheirLargerShares() {
        join("b");
        join("c");
        join("d");
        heartbeats(2 * MOST_HEARTBEATS_TO_CONVERGE);
        assertFairSplit("three members");

        // "a" sorts first, so it beats before the others have given anything back: the worst order for it.
        join("a");
        heartbeats(MOST_HEARTBEATS_TO_CONVERGE);

        assertFairSplit("two heartbeats after a joined");
    }

    @Test
    void theOthersHaveTheFairSplitWithinTwoHeartbeatsAfterACleanLeave() {
        join("a");
        join("b");
        join("c");
        join("d");
        heartbeats(2 * MOST_HEARTBEATS_TO_CONVERGE);
        assertFairSplit("four members");

        live.remove("d").stop();
        heartbeats(MOST_HEARTBEATS_TO_CONVERGE);

        assertFairSplit("two heartbeats after d left");
    }

    @Test
    void theOthersHaveTheFairSplitWithinTwoHeartbeatsAfterADeadMembersLeaseExpired() {
        join("a");
        join("b");
        join("c");
        heartbeats(2 * MOST_HEARTBEATS_TO_CONVERGE);
        assertFairSplit("three members");

        live.remove("c");
        long expiry = coordinator.expiresAt("c");
        // Beat until the next heartbeat is the first one at or after the expiry.
        while (clock.get() + HEARTBEAT.toNanos() < expiry) {
            heartbeats(1);
        }
        heartbeats(MOST_HEARTBEATS_TO_CONVERGE);

        assertFairSplit("two heartbeats after c's lease expired");
    }

    private void join(String name) {
        FleetMember member = new FleetMember(coordinator,
                new FleetSettings(name, 1, POOL_SIZE, FLOOR, HEARTBEAT, LEASE_TTL, null),
                List.of(new SaturatedPool()), scheduler, FleetLog.systemLogger(), clock::get);
        live.put(name, member);
        member.start();
        // The first heartbeat runs at once on start; the one under way when the change happens.
        member.heartbeat();
    }

    private void heartbeats(int count) {
        for (int i = 0; i < count; i++) {
            clock.addAndGet(HEARTBEAT.toNanos());
            live.values().forEach(FleetMember::heartbeat);
        }
    }

    private void assertFairSplit(String when) {
        List<String> names = List.copyOf(live.keySet());
        int[] fair = WeightedShares.split(BUDGET,
                names.stream().map(name -> new WeightedShares.Claim(1, POOL_SIZE)).toList());
        Map<String, List<Integer>> expected = new TreeMap<>();
        Map<String, List<Integer>> actual = new TreeMap<>();
        for (int i = 0; i < names.size(); i++) {
            FleetMember.Snapshot snapshot = live.get(names.get(i)).snapshot();
            expected.put(names.get(i), List.of(fair[i], fair[i], fair[i]));
            actual.put(names.get(i), List.of(snapshot.applied(), snapshot.granted(),
                    coordinator.grantOf(names.get(i))));
        }
        assertThat(actual).as("applied, granted by its lease, granted by the coordinator, %s", when)
                .isEqualTo(expected);
        assertThat(coordinator.unexpiredGrants()).as("unexpired grants, %s", when).isLessThanOrEqualTo(BUDGET);
    }

    /**
     * A pool whose callers use every connection it allows. Lowered, it keeps the connections of the transactions
     * under way until the member has looked at it {@link #LOOKS_UNTIL_DRAINED} times: they finish during the
     * heartbeat that lowered it, not at once.
     */
    private static final class SaturatedPool implements ShareTarget {

        private int maximum;
        private int inUse;
        private int looksUntilDrained;

        @Override
        public boolean apply(int connections) {
            maximum = connections;
            if (connections >= inUse) {
                inUse = connections;
            } else {
                looksUntilDrained = LOOKS_UNTIL_DRAINED;
            }
            return true;
        }

        @Override
        public int connectionsInUse() {
            if (inUse > maximum && --looksUntilDrained <= 0) {
                inUse = maximum;
            }
            return inUse;
        }
    }

    /** The PostgreSQL coordinator's serialised step, in memory, on the test's clock. */
    private final class InMemoryCoordinator implements FleetCoordinator {

        private record Row(int weight, int demand, int granted, long expiresAt) {
        }

        private final Map<String, Row> rows = new TreeMap<>();

        @Override
        public Lease renew(LeaseRequest request) {
            long now = clock.get();
            rows.values().removeIf(row -> row.expiresAt() <= now);
            List<ShareSettlement.Holder> others = new ArrayList<>();
            rows.forEach((id, row) -> {
                if (!id.equals(request.memberId())) {
                    others.add(new ShareSettlement.Holder(id, row.weight(), row.demand(), row.granted()));
                }
            });
            Row own = rows.get(request.memberId());
            ShareSettlement.Settled settled = ShareSettlement.settle(BUDGET, others, request,
                    own == null ? 0 : own.granted(), 0);
            rows.put(request.memberId(), new Row(request.weight(), request.demand(), settled.granted(),
                    now + request.leaseTtl().toNanos()));
            return new Lease(settled.granted(), settled.target(), BUDGET, BUDGET, List.of(), List.of(), List.of());
        }

        @Override
        public void leave(String memberId) {
            rows.remove(memberId);
        }

        long expiresAt(String memberId) {
            return rows.get(memberId).expiresAt();
        }

        int grantOf(String memberId) {
            Row row = rows.get(memberId);
            return row == null ? 0 : row.granted();
        }

        int unexpiredGrants() {
            long now = clock.get();
            return rows.values().stream().filter(row -> row.expiresAt() > now).mapToInt(Row::granted).sum();
        }
    }
}
