package dev.dbbulkhead.benchmarks.shares;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Ten tenants on one workload: each guard is run once with every tenant offering the same load, once with the first
 * tenant offering ten times as much. The nine others offer together {@value #EQUAL_SHARE_OF_CAPACITY_PERCENT} % of
 * the workload's capacity, each below its tenth; the noisy neighbour alone offers more than the whole leftover, so
 * that together they overload the workload. The capacity is measured, not assumed, on the pool and transaction of
 * the overload scenario: B callers back to back ({@link OverloadScenario#closedLoop}), once to warm up, once counted.
 */
final class TenantsScenario {

    static final String WORKLOAD = "tenants";
    static final int TENANTS = 10;
    static final int NOISY_FACTOR = 10;
    static final int POOL_SIZE = OverloadScenario.POOL_SIZE;
    static final Duration HOLD = OverloadScenario.TRANSACTION_SLEEP;
    static final Budget BUDGET = new Budget(POOL_SIZE, POOL_SIZE, Duration.ofMillis(50));
    static final int EQUAL_SHARE_OF_CAPACITY_PERCENT = 60;
    static final List<TenantGuard> GUARDS = List.of(TenantGuard.FAIR_SHARES, TenantGuard.NO_RULES,
            TenantGuard.RESILIENCE4J_PER_TENANT, TenantGuard.PARTITIONED_LIMITER);

    private TenantsScenario() {
    }

    /**
     * @param capacity commits per second of B callers back to back, measured before the runs
     * @param runs     every guard, quiet then noisy
     */
    record Result(double capacity, List<TenantRun> runs) {

        /** What each tenant offers in a run without a noisy neighbour, and each of the nine in every run. */
        double perTenant() {
            return TenantsScenario.perTenant(capacity);
        }
    }

    static double perTenant(double capacity) {
        return capacity * EQUAL_SHARE_OF_CAPACITY_PERCENT / 100.0 / (TENANTS - 1);
    }

    static List<String> tenants() {
        return IntStream.range(0, TENANTS).mapToObj(t -> "tenant-" + t).toList();
    }

    /**
     * Every guard, quiet then with the noisy neighbour, after a run of the first guard's quiet load that is not
     * counted: the first run otherwise pays for compiling the gate's and the driver's paths, and its quiet baseline
     * comes out low.
     */
    static Result run(BenchDatabase database, ScenarioSettings settings) throws SQLException, InterruptedException {
        OverloadScenario.closedLoop(database, settings);
        double capacity = OverloadScenario.closedLoop(database, settings);
        runOne(database, settings, GUARDS.getFirst(), false, perTenant(capacity));
        List<TenantRun> runs = new ArrayList<>();
        for (TenantGuard guard : GUARDS) {
            for (boolean noisy : List.of(false, true)) {
                runs.add(runOne(database, settings, guard, noisy, perTenant(capacity)));
            }
        }
        return new Result(capacity, runs);
    }

    private static TenantRun runOne(BenchDatabase database, ScenarioSettings settings, TenantGuard guard,
                                    boolean noisy, double perTenant) throws SQLException, InterruptedException {
        String poolName = "tenants-" + guard.name() + (noisy ? "-noisy" : "-quiet");
        try (HikariDataSource pool = database.pool(POOL_SIZE, settings.poolTimeout(), poolName)) {
            TenantTransactions transactions = guard.open(pool, BUDGET, tenants());
            Occupancy occupancy = new Occupancy();
            List<LoadStream> streams = new ArrayList<>();
            List<Double> rates = new ArrayList<>();
            for (String tenant : tenants()) {
                double rate = noisy && rates.isEmpty() ? NOISY_FACTOR * perTenant : perTenant;
                rates.add(rate);
                streams.add(BenchDatabase.callers(tenant, rate, transactions.of(tenant), HOLD, occupancy));
            }
            RunConditions.settleHeap();
            Duration drain = settings.poolTimeout().plus(BUDGET.queueWait()).plusSeconds(1);
            Map<String, CallLog> logs = OpenLoopLoad.run(streams, settings.window(), drain, occupancy);
            List<StreamOutcome> outcomes = new ArrayList<>();
            for (int t = 0; t < streams.size(); t++) {
                String tenant = streams.get(t).name();
                outcomes.add(StreamOutcome.of(tenant, rates.get(t), logs.get(tenant)));
            }
            return new TenantRun(guard, noisy, outcomes, RunConditions.loadAverage());
        }
    }
}
