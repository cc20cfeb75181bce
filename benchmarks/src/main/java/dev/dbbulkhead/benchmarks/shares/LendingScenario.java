package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.util.Optional;

/**
 * THE PLACE OF THE LENDING SCENARIO, not built yet: lending between the workloads of one pool is not on this
 * branch. When it is, this runs two workloads on one pool, the owner idle then busy, with and without lending, and
 * {@link SharesTargets#lending} judges its two targets from the {@link Result}; until then the section reports
 * them as not run.
 */
final class LendingScenario {

    /** The borrower's goodput while the owner is idle ≥ this × its goodput without lending. */
    static final double BORROWER_GOODPUT_TARGET = 1.8;
    /** When the owner returns, its p99 within this × the no-lending run's, within one second. */
    static final double OWNER_P99_TARGET = 1.2;
    static final String NOT_ON_THIS_BRANCH = "not run: lending not on this branch yet";

    private LendingScenario() {
    }

    /**
     * What the scenario will measure.
     *
     * @param borrowerGoodputRatio the borrower's goodput with lending over without, while the owner is idle
     * @param ownerP99Ratio        the owner's p99 in its first second back, with lending over without
     */
    record Result(double borrowerGoodputRatio, double ownerP99Ratio) {
    }

    /** Empty: there is no lending to measure on this branch. */
    static Optional<Result> run(BenchDatabase database, ScenarioSettings settings) {
        return Optional.empty();
    }
}
