package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.share.WeightedShares;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The pure policies: the fair split, the settlement of a grant and the split over gates. */
class FleetPolicyTests {

    private static WeightedShares.Claim claim(int weight, int demand) {
        return new WeightedShares.Claim(weight, demand);
    }

    @Test
    void equalClaimsSplitEquallyAndTheRemainderGoesToTheFirst() {
        assertThat(WeightedShares.split(12, List.of(claim(1, 10), claim(1, 10), claim(1, 10))))
                .containsExactly(4, 4, 4);
        assertThat(WeightedShares.split(36, IntStream.range(0, 8).mapToObj(i -> claim(1, 10)).toList()))
                .containsExactly(5, 5, 5, 5, 4, 4, 4, 4);
    }

    @Test
    void weightsSplitInProportionAndWhatOneCannotUseGoesToTheOthers() {
        assertThat(WeightedShares.split(12, List.of(claim(2, 20), claim(1, 20)))).containsExactly(8, 4);
        assertThat(WeightedShares.split(12, List.of(claim(1, 2), claim(1, 20)))).containsExactly(2, 10);
        assertThat(WeightedShares.split(40, List.of(claim(1, 10), claim(1, 10)))).containsExactly(10, 10);
    }

    @Test
    void theSharesNeverAddUpToMoreThanTheTotal() {
        for (int total = 0; total < 50; total++) {
            for (int members = 1; members < 9; members++) {
                int[] shares = WeightedShares.split(total, IntStream.range(0, members)
                        .mapToObj(i -> claim(1 + i % 3, 3 + 2 * i)).toList());
                assertThat(IntStream.of(shares).sum()).as("%d among %d", total, members).isLessThanOrEqualTo(total);
            }
        }
    }

    @Test
    void aNewcomerGetsOnlyWhatNoUnexpiredLeaseHolds() {
        LeaseRequest newcomer = new LeaseRequest("c", 1, 10, 2, Duration.ofSeconds(1), null);
        List<ShareSettlement.Holder> holders = List.of(new ShareSettlement.Holder("a", 1, 10, 6),
                new ShareSettlement.Holder("b", 1, 10, 6));

        assertThat(ShareSettlement.settle(12, holders, newcomer, 0, 0)).isEqualTo(new ShareSettlement.Settled(0, 4));
        assertThat(ShareSettlement.settle(12, List.of(new ShareSettlement.Holder("a", 1, 10, 4),
                new ShareSettlement.Holder("b", 1, 10, 6)), newcomer, 0, 0)).isEqualTo(new ShareSettlement.Settled(2, 4));
    }

    @Test
    void nobodyGrowsIntoTheShareOfAnExpiredMemberWhoseSessionsAreStillOpen() {
        LeaseRequest survivor = new LeaseRequest("b", 1, 10, 6, Duration.ofSeconds(1), null);
        List<ShareSettlement.Holder> live = List.of(new ShareSettlement.Holder("c", 1, 10, 6));

        assertThat(ShareSettlement.settle(18, live, survivor, 6, 6)).as("expired member's 6 still open")
                .isEqualTo(new ShareSettlement.Settled(6, 9));
        assertThat(ShareSettlement.settle(18, live, survivor, 6, 0)).as("its sessions ended")
                .isEqualTo(new ShareSettlement.Settled(9, 9));
    }

    @Test
    void aShrinkingMemberGivesBackNoMoreThanItHasLetGoOf() {
        List<ShareSettlement.Holder> others = List.of(new ShareSettlement.Holder("b", 1, 10, 4),
                new ShareSettlement.Holder("c", 1, 10, 0));
        assertThat(ShareSettlement.settle(12, others, request("a", 8), 8, 0))
                .as("still using 8").isEqualTo(new ShareSettlement.Settled(8, 4));
        assertThat(ShareSettlement.settle(12, others, request("a", 5), 8, 0))
                .as("draining, 5 still held").isEqualTo(new ShareSettlement.Settled(5, 4));
        assertThat(ShareSettlement.settle(12, others, request("a", 4), 8, 0))
                .as("shrunk").isEqualTo(new ShareSettlement.Settled(4, 4));
    }

    @Test
    void theGatesGetTheirConfiguredProportionsAtLeastOneEachNeverAboveTheirB() {
        GateShares shares = new GateShares(List.of(ceiling("orders", 6), ceiling("reports", 4)));

        assertThat(shares.split(5)).containsExactly(3, 2);
        assertThat(shares.split(2)).containsExactly(1, 1);
        assertThat(shares.split(40)).containsExactly(6, 4);
        assertThat(shares.apply(1)).as("fewer connections than workloads").isFalse();
        assertThat(shares.ceilings()).extracting(ConcurrencyCeiling::ceiling).containsExactly(1, 1);
    }

    @Test
    void settingsRefuseALeaseShorterThanTwoHeartbeatsAndAFloorAboveThePool() {
        assertThatIllegalArgumentException().isThrownBy(() -> new FleetSettings("m", 1, 10, 2,
                Duration.ofSeconds(1), Duration.ofMillis(1500), null)).withMessageContaining("at least two heartbeats");
        assertThatIllegalArgumentException().isThrownBy(() -> new FleetSettings("m", 1, 10, 11,
                        Duration.ofSeconds(1), Duration.ofSeconds(5), null))
                .withMessageContaining("floor must be between 1 and");
    }

    @Test
    void aMembersTargetOfAMovedTotalIsTheOneASettlementGivesItWhateverTheOrderItKnowsTheFleetIn() {
        List<ShareSettlement.Holder> fleet = List.of(new ShareSettlement.Holder("c", 1, 10, 4),
                new ShareSettlement.Holder("a", 2, 10, 4), new ShareSettlement.Holder("b", 1, 2, 2));

        assertThat(ShareSettlement.targetOf(9, fleet, "a")).isEqualTo(5);
        assertThat(ShareSettlement.targetOf(9, fleet, "b")).isEqualTo(2);
        assertThat(ShareSettlement.targetOf(9, fleet, "c")).isEqualTo(2);
        assertThat(ShareSettlement.targetOf(9, fleet, "d")).as("not among them").isEqualTo(-1);
        assertThat(ShareSettlement.settle(9, fleet.subList(0, 2), new LeaseRequest("b", 1, 2, 2,
                Duration.ofSeconds(5), null), 2, 0).target()).isEqualTo(ShareSettlement.targetOf(9, fleet, "b"));
    }

    /** A request of a member of weight 1 and demand 10 whose sessions carry no name of their own. */
    private static LeaseRequest request(String memberId, int connectionsInUse) {
        return new LeaseRequest(memberId, 1, 10, connectionsInUse, Duration.ofSeconds(1), null);
    }

    private static ConcurrencyCeiling ceiling(String workload, int maxConcurrent) {
        return ConcurrencyCeiling.of(new AdmissionGate(workload, GateConfig.builder()
                .maxConcurrent(maxConcurrent).build()));
    }
}
