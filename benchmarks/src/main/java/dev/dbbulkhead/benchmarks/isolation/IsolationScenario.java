package dev.dbbulkhead.benchmarks.isolation;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.TransactionGuard;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Scenario 3: {@code orders} runs light transactions at a modest rate while {@code reports} floods the same pool
 * with heavy ones. Compared: no gate and db-bulkhead budgets, each with and without the flood.
 */
public final class IsolationScenario {

    public static final int POOL_SIZE = 10;
    static final Duration ORDER_SLEEP = Duration.ofMillis(2);
    static final double ORDERS_PER_SECOND = 100;
    static final Duration REPORT_SLEEP = Duration.ofMillis(100);
    /** Ten times what the whole pool could serve of reports. */
    static final double REPORTS_PER_SECOND = 10 * POOL_SIZE / (REPORT_SLEEP.toNanos() / 1e9);
    /** orders' and reports' budgets add up to less than P: a connection is always there for orders. */
    static final Budget ORDERS_BUDGET = new Budget(5, 10, Duration.ofMillis(50));
    static final Budget REPORTS_BUDGET = new Budget(4, 4, Duration.ofMillis(20));

    private IsolationScenario() {
    }

    /** The setup in words, for the report. */
    public static String describe(ScenarioSettings settings) {
        return "P = " + POOL_SIZE + " connections shared by two workloads. orders: pg_sleep(" + ORDER_SLEEP.toMillis()
                + " ms) + one-row UPDATE, " + (int) ORDERS_PER_SECOND + " calls/s. reports (flood): pg_sleep("
                + REPORT_SLEEP.toMillis() + " ms) + one-row UPDATE, " + (int) REPORTS_PER_SECOND
                + " calls/s (10x what the whole pool could serve of them). db-bulkhead budgets: orders B = "
                + ORDERS_BUDGET.maxConcurrent() + ", Q = " + ORDERS_BUDGET.maxQueued() + ", wait "
                + ORDERS_BUDGET.queueWait().toMillis() + " ms; reports B = " + REPORTS_BUDGET.maxConcurrent() + ", Q = "
                + REPORTS_BUDGET.maxQueued() + ", wait " + REPORTS_BUDGET.queueWait().toMillis() + " ms. "
                + settings.window().toMillis() + " ms of load per run, pool timeout "
                + settings.poolTimeout().toMillis() + " ms. Physical floor of an order: its 2 ms sleep.";
    }

    /** No gate and db-bulkhead, each quiet then flooded. */
    public static List<IsolationRun> run(ScenarioSettings settings) throws SQLException, InterruptedException {
        BenchDatabase database = BenchDatabase.create();
        List<IsolationRun> runs = new ArrayList<>();
        for (TransactionGuard guard : List.of(TransactionGuard.NONE, TransactionGuard.DB_BULKHEAD)) {
            for (boolean flooded : List.of(false, true)) {
                runs.add(runOne(database, settings, guard, flooded));
            }
        }
        return runs;
    }

    private static IsolationRun runOne(BenchDatabase database, ScenarioSettings settings, TransactionGuard guard,
                                       boolean flooded) throws SQLException, InterruptedException {
        String poolName = "isolation-" + guard.name() + (flooded ? "-flooded" : "-quiet");
        try (HikariDataSource pool = database.pool(POOL_SIZE, settings.poolTimeout(), poolName)) {
            Occupancy occupancy = new Occupancy();
            List<LoadStream> streams = new ArrayList<>();
            streams.add(BenchDatabase.callers("orders", ORDERS_PER_SECOND, guard.open("orders", pool, ORDERS_BUDGET, null),
                    ORDER_SLEEP, occupancy));
            if (flooded) {
                streams.add(BenchDatabase.callers("reports", REPORTS_PER_SECOND, guard.open("reports", pool, REPORTS_BUDGET, null),
                        REPORT_SLEEP, occupancy));
            }
            RunConditions.settleHeap();
            Duration drain = settings.poolTimeout().plus(REPORT_SLEEP).plusSeconds(1);
            Map<String, CallLog> logs = OpenLoopLoad.run(streams, settings.window(), drain, occupancy);
            CallLog orders = logs.get("orders");
            CallLog reports = logs.get("reports");
            return new IsolationRun(guard, flooded, orders.offered(), orders.counts(),
                    LatencySummary.ofNanos(orders.latencies(Outcome.COMMITTED)),
                    reports == null ? 0 : reports.offered(),
                    reports == null ? Map.of() : reports.counts(), RunConditions.loadAverage());
        }
    }
}
