package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Ten tenants, one asking ten times what each of the others asks, 3 × capacity in all, at the corners of operation
 * time (5 to 400 ms) and queue wait (0.5 to 10 × the operation), B = 8, Q = 16, fair shares. The nine others ask
 * 3 / 19 of the capacity each, above the tenth that is their share: together they ask 1.42 × capacity, so no order
 * serves each of them 95 %. What fairness owes them is their max-min share, a tenth of the capacity each, and every
 * tenant must get at least 0.9 of it.
 */
class TenTenantsAtTheCornersSimulatedTests {

    private static final long MS = 1_000_000L;

    @ParameterizedTest(name = "operations of {0} ms, queue wait {1} x the operation")
    @CsvSource({"5,0.5", "5,1", "5,10", "50,0.5", "50,1", "50,10", "400,0.5", "400,1", "400,10"})
    void everyTenantGetsNineTenthsOfItsMaxMinShare(long operationMs, double waitOverOperation) {
        double capacity = 8 * 1000.0 / operationMs;
        double unit = 3 * capacity / 19;
        List<SimulatedFlow> flows = new ArrayList<>();
        flows.add(poisson("noisy", 10 * unit));
        for (int i = 1; i <= 9; i++) {
            flows.add(poisson("tenant-" + i, unit));
        }
        SimulatedWorkload workload = corner(70 + operationMs, operationMs, waitOverOperation, flows);
        MaxMinShares shares = new MaxMinShares(flows, workload.capacityPerSecond());

        SimulationResult result = SchedulerSimulation.run(workload, new SchedulerOrder(flows, workload.rules()),
                shares, true);

        double least = Double.MAX_VALUE;
        for (int f = 0; f < flows.size(); f++) {
            least = Math.min(least, result.served[f] / result.measuredSeconds / shares.of(f));
        }
        System.out.printf("operations %d ms, wait %.1f x: least tenant %.3f of its max-min share; busy while work"
                + " waits %.1f %%%n", operationMs, waitOverOperation, least, 100 * result.busyWhileWaiting());
        assertThat(least).isGreaterThanOrEqualTo(0.9);
    }

    @ParameterizedTest(name = "operations of {0} ms, queue wait {1} x the operation")
    @CsvSource({"5,0.5", "5,1", "5,10", "50,0.5", "50,1", "50,10", "400,0.5", "400,1", "400,10"})
    void nineQuietTenantsUnderTheirShareBesideANoisyOneAreEachServedAtLeastNinetyFivePercent(long operationMs,
                                                                                          double waitOverOperation) {
        NineQuiet served = nineQuietBesideANoisyOne(operationMs, waitOverOperation);
        // Before a flow saved use up, a wait half an operation long left the least quiet tenant at 94.6-94.9 %.
        assertThat(served.real()).isGreaterThanOrEqualTo(0.95);
        assertThat(served.real()).as("against the oracle's %.4f", served.oracle())
                .isGreaterThanOrEqualTo(0.97 * served.oracle());
    }

    /**
     * Where a queue wait is a little over a third of the operation no order serves every quiet tenant 95 %: what a
     * 2.5 ms wait was on real PostgreSQL when the statements and commit around a 5 ms sleep held each place 6.5-6.8 ms
     * (docs/benchmarks/scheduler-family.md), and why the benchmark calibrates the hold to the operation's time.
     */
    @Test
    void aQueueWaitOfAThirdOfTheOperationIsTooShortForAnyOrderToServeEveryQuietTenantNinetyFivePercent() {
        NineQuiet served = nineQuietBesideANoisyOne(5, 0.37);

        assertThat(served.oracle()).isLessThan(0.95);
        assertThat(served.real()).isGreaterThanOrEqualTo(0.97 * served.oracle());
    }

    /** The least served of the nine quiet tenants, under the order and under the oracle. */
    private record NineQuiet(double real, double oracle) {
    }

    private static NineQuiet nineQuietBesideANoisyOne(long operationMs, double waitOverOperation) {
        double capacity = 8 * 1000.0 / operationMs;
        List<SimulatedFlow> flows = new ArrayList<>();
        flows.add(poisson("noisy", 2.55 * capacity));
        for (int i = 1; i <= 9; i++) {
            flows.add(poisson("quiet-" + i, 0.05 * capacity));
        }
        SimulatedWorkload workload = corner(80 + operationMs, operationMs, waitOverOperation, flows);
        MaxMinShares shares = new MaxMinShares(flows, workload.capacityPerSecond());

        SimulationResult real = SchedulerSimulation.run(workload, new SchedulerOrder(flows, workload.rules()), shares,
                true);
        SimulationResult oracle = SchedulerSimulation.run(workload, new MaxMinOracle(flows, shares, false), shares,
                false);

        NineQuiet served = new NineQuiet(real.leastServed(f -> f > 0), oracle.leastServed(f -> f > 0));
        System.out.printf("operations %d ms, wait %.2f x: least quiet tenant %.2f %%, oracle %.2f %%%n", operationMs,
                waitOverOperation, 100 * served.real(), 100 * served.oracle());
        return served;
    }

    /**
     * The multi-tenant how-to's workload (B = 8, Q = 16, fair shares) at one corner: operations uniform around
     * {@code operationMs}, a queue wait of {@code waitOverOperation} × that, simulated for 2,000 operations of each
     * place and a minute at least.
     */
    private static SimulatedWorkload corner(long seed, long operationMs, double waitOverOperation,
                                            List<SimulatedFlow> flows) {
        return new SimulatedWorkload(seed, 8, 16, (long) (waitOverOperation * operationMs * MS),
                new OperationTimes(OperationTimes.Shape.UNIFORM, operationMs * MS), flows,
                AdmissionRules.builder().fairShares(true).build(), 0, 0.0, Math.max(60_000, operationMs * 2_000) * MS);
    }

    private static SimulatedFlow poisson(String key, double perSecond) {
        return new SimulatedFlow(key, 1, Criticality.DEFAULT, SimulatedFlow.ArrivalProcess.POISSON, perSecond, 1, 0);
    }
}
