package dev.dbbulkhead.saturation;

import static dev.dbbulkhead.saturation.SaturationPolicyTests.signals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.fleet.FleetTotals;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetTotalPolicyTests {

    private static final int CPUS = 4;

    private final FleetTotalPolicy policy = new FleetTotalPolicy(new SaturationPolicy(CPUS));

    @Test
    void lockContentionLowersTheTotalToWhatMakesProgress() {
        // 12 held, 8 of them waiting for a hot row's lock: 12 − 8 + 1 make progress, below 12 × 0.75.
        int next = policy.next(signals(Map.of(WaitClass.LOCK, 8, WaitClass.CPU, 2, WaitClass.CLIENT, 2)),
                new FleetTotals.Fleet(12, 20, 12, 30));

        assertThat(next).isEqualTo(5);
    }

    @Test
    void aSaturatedServerLowersTheTotalFromWhatTheFleetHoldsWhoeverSaturatesIt() {
        // 10 sessions on 4 processors, most of them another application's: the fleet, holding 8 of its 16, still
        // backs off, so that scaling out adds no load.
        int next = policy.next(signals(Map.of(WaitClass.CPU, 10)), new FleetTotals.Fleet(16, 20, 8, 30));

        assertThat(next).isEqualTo(6);
    }

    @Test
    void aHealthyServerRaisesATotalTheFleetHoldsWholeAndWantsMoreOfUpToTheBudget() {
        FleetTotals.Fleet usingAll = new FleetTotals.Fleet(8, 20, 8, 30);
        FleetTotals.Fleet nearTheBudget = new FleetTotals.Fleet(18, 20, 18, 30);

        assertThat(policy.next(signals(Map.of(WaitClass.CPU, 1)), usingAll)).isEqualTo(10);
        assertThat(policy.next(signals(Map.of(WaitClass.CPU, 1)), nearTheBudget)).isEqualTo(20);
    }

    @Test
    void aHealthyServerHoldsATotalTheFleetDoesNotUseOrCouldNotUseMoreOf() {
        assertThat(policy.next(signals(Map.of(WaitClass.CLIENT, 1)), new FleetTotals.Fleet(8, 20, 5, 30))).as("not all held")
                .isEqualTo(8);
        assertThat(policy.next(signals(Map.of(WaitClass.CLIENT, 1)), new FleetTotals.Fleet(8, 20, 8, 8))).as("no demand beyond it")
                .isEqualTo(8);
    }

    @Test
    void aBusyServerHoldsTheTotal() {
        // 4 sessions on 4 processors: between healthy (below 3) and saturated (above 4).
        assertThat(policy.next(signals(Map.of(WaitClass.CPU, 3, WaitClass.IO, 1)), new FleetTotals.Fleet(8, 20, 8,
                30))).isEqualTo(8);
    }

    @Test
    void theTotalNeverFallsBelowOne() {
        assertThat(policy.next(signals(Map.of(WaitClass.CPU, 40)), new FleetTotals.Fleet(1, 20, 1, 30)))
                .isEqualTo(1);
        assertThat(policy.next(signals(Map.of(WaitClass.LOCK, 5, WaitClass.CPU, 1)), new FleetTotals.Fleet(2, 20, 0,
                30))).isEqualTo(1);
    }
}
