package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Who gets the next connection: the benchmark section of tenants and criticality, one run. In order: the key flood
 * (no database, on a heap the other scenarios have not touched), the tenants scenario, the criticality scenario, the
 * lending scenario's place, and — given the earlier build's jar — the gate-cost benchmarks of a workload without
 * rules, this build against that one. Every part's targets are judged by {@link SharesTargets}.
 */
public final class SharesRun {

    /** Distinct keys of the flood, and of its warm-up. */
    static final int FLOOD_KEYS = 1_000_000;
    static final int FLOOD_WARM_UP_KEYS = 200_000;

    private SharesRun() {
    }

    /**
     * @param fastPath empty when no earlier build's jar was given
     */
    public record Result(ScenarioSettings settings, KeyFlood.Result flood, TenantsScenario.Result tenants,
                         CriticalityScenario.Result criticality, SharesLending.Result lending,
                         Optional<FastPathComparison.Result> fastPath, Instant began, Instant ended) {

        /** Every target of the section with its verdict. */
        public List<Verdict> verdicts() {
            return SharesTargets.judge(this);
        }
    }

    /**
     * @param quick  a fraction of each part, to try the harness; the numbers mean nothing
     * @param before the benchmarks jar of the build before the admission rules, if the fast path is to be compared
     */
    public static Result run(boolean quick, Optional<Path> before) throws Exception {
        Instant began = Instant.now();
        ScenarioSettings settings = quick ? ScenarioSettings.smoke() : ScenarioSettings.full();
        KeyFlood.Result flood = quick ? KeyFlood.run(FLOOD_KEYS / 10, FLOOD_WARM_UP_KEYS / 10)
                : KeyFlood.run(FLOOD_KEYS, FLOOD_WARM_UP_KEYS);
        BenchDatabase database = BenchDatabase.create();
        TenantsScenario.Result tenants = TenantsScenario.run(database, settings);
        CriticalityScenario.Result criticality = CriticalityScenario.run(database, settings);
        SharesLending.Result lending = SharesLending.run(quick);
        Optional<FastPathComparison.Result> fastPath = before.isEmpty() ? Optional.empty()
                : Optional.of(FastPathComparison.run(before.get(),
                        quick ? FastPathComparison.Effort.QUICK : FastPathComparison.Effort.FULL));
        return new Result(settings, flood, tenants, criticality, lending, fastPath, began, Instant.now());
    }
}
