package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Measurements taken from outside, with an application and a client the project did not write, run in the simulator
 * beside the oracle: what the order got wrong shows as a gap to the oracle, what no order can help as refusals the
 * oracle has too.
 */
class MeasurementsFromOutsideSimulatedTests {

    private static final long MS = 1_000_000L;

    @Test
    void nineQuietTenantsBesideANoisyOneAtLongOperationsAreServedAsAnyOrderCould() {
        List<SimulatedFlow> flows = new ArrayList<>();
        flows.add(poisson("noisy", 50.0));
        for (int i = 1; i <= 9; i++) {
            flows.add(poisson("quiet-" + i, 1.1));
        }
        SimulatedWorkload workload = new SimulatedWorkload(51, 8, 16, 200 * MS,
                new OperationTimes(OperationTimes.Shape.FIXED, 400 * MS), flows, fairShares(), 0, 0.0, 600_000 * MS);

        double[] served = quietServed(workload);

        assertThat(served[0]).as("real ÷ oracle").isGreaterThanOrEqualTo(0.97 * served[1]);
    }

    @Test
    void quietTenantsAtTheHowTosTimingsAreServedAsAnyOrderCould() {
        List<SimulatedFlow> flows = new ArrayList<>();
        double capacity = 8 * 1000.0 / 23;
        flows.add(poisson("noisy", 1.2 * capacity));
        for (int i = 1; i <= 9; i++) {
            flows.add(poisson("quiet-" + i, 0.05 * capacity));
        }
        SimulatedWorkload workload = new SimulatedWorkload(52, 8, 16, 50 * MS,
                new OperationTimes(OperationTimes.Shape.UNIFORM, 23 * MS), flows, fairShares(), 0, 0.0, 60_000 * MS);

        double[] served = quietServed(workload);

        assertThat(served[0]).as("real ÷ oracle").isGreaterThanOrEqualTo(0.97 * served[1]);
    }

    @Test
    void aKeylessClientAskingOneAndAHalfTimesCapacityGetsItsShareBesideFourKeyedTenants() {
        List<SimulatedFlow> flows = new ArrayList<>();
        double capacity = 8 * 1000.0 / 23;
        flows.add(poisson(AdmissionRules.DEFAULT_KEYLESS_KEY, 1.5 * capacity));
        for (int i = 1; i <= 4; i++) {
            flows.add(poisson("tenant-" + i, 0.3 * capacity));
        }
        SimulatedWorkload workload = new SimulatedWorkload(53, 8, 16, 50 * MS,
                new OperationTimes(OperationTimes.Shape.UNIFORM, 23 * MS), flows, fairShares(), 0, 0.0, 60_000 * MS);
        MaxMinShares shares = new MaxMinShares(flows, workload.capacityPerSecond());
        SimulationResult real = SchedulerSimulation.run(workload, new SchedulerOrder(flows, workload.rules()), shares,
                true);

        double keylessRate = real.served[0] / real.measuredSeconds;
        System.out.printf("keyless: %.1f/s against a max-min share of %.1f/s%n", keylessRate, shares.of(0));
        assertThat(keylessRate).isGreaterThanOrEqualTo(0.9 * shares.of(0));
    }

    /** The quiet flows' served fraction under the real order and under the oracle, printed. */
    private static double[] quietServed(SimulatedWorkload workload) {
        List<SimulatedFlow> flows = workload.flows();
        MaxMinShares shares = new MaxMinShares(flows, workload.capacityPerSecond());
        SimulationResult real = SchedulerSimulation.run(workload, new SchedulerOrder(flows, workload.rules()), shares,
                true);
        SimulationResult oracle = SchedulerSimulation.run(workload, new MaxMinOracle(flows, shares, false), shares,
                false);
        double[] fractions = {fraction(real, shares), fraction(oracle, shares)};
        System.out.printf("quiet served %.1f %% (least tenant %.1f %%), oracle %.1f %% (least %.1f %%); "
                        + "busy while work waits %.1f %%; %s%n", 100 * fractions[0],
                100 * real.leastServed(shares::clearlyUnder), 100 * fractions[1],
                100 * oracle.leastServed(shares::clearlyUnder), 100 * real.busyWhileWaiting(), workload.describe());
        return fractions;
    }

    private static double fraction(SimulationResult result, MaxMinShares shares) {
        long served = 0;
        long offered = 0;
        for (int f = 0; f < result.offered.length; f++) {
            if (shares.clearlyUnder(f)) {
                served += result.served[f];
                offered += result.offered[f];
            }
        }
        return (double) served / offered;
    }


    private static SimulatedFlow poisson(String key, double perSecond) {
        return new SimulatedFlow(key, 1, Criticality.DEFAULT, SimulatedFlow.ArrivalProcess.POISSON, perSecond, 1, 0);
    }

    private static AdmissionRules fairShares() {
        return AdmissionRules.builder().fairShares(true).build();
    }
}
