package dev.dbbulkhead.benchmarks.lending;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.StartingAt;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.LendingPool;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * Lending between two workloads of one pool, on real PostgreSQL: {@code orders} (B = {@value #ORDERS_B}) lends the
 * places it leaves unused, {@code reports} (B = {@value #REPORTS_B}) may borrow up to {@value #REPORTS_BORROW} of them.
 * Each run has two phases: in phase A only {@code reports} offers load, far above its own B; in phase B
 * {@code orders} returns with its normal load while {@code reports} keeps pushing. Two runs, one after the other on
 * one database: without lending (both gates {@link GateLending#none()}, as with {@code lending.borrow: 0}), then with
 * it. The HikariCP pool has {@value #POOL_HEADROOM} connections more than the gates' Σ B, so that the busy sessions the
 * server shows are bounded by the gates, not by the pool.
 */
public final class LendingScenario {

    public static final String ORDERS = "orders";
    public static final String REPORTS = "reports";
    public static final int ORDERS_B = 6;
    public static final int REPORTS_B = 2;
    public static final int REPORTS_BORROW = 6;
    /** {@code orders} queues a little, as an interactive workload would; {@code reports} is refused when full. */
    public static final Budget ORDERS_BUDGET = new Budget(ORDERS_B, ORDERS_B, Duration.ofMillis(250));
    public static final Budget REPORTS_BUDGET = new Budget(REPORTS_B, 0, Duration.ZERO);
    public static final int POOL_HEADROOM = 4;
    /** How many keys the borrower's calls take in turn when its gate has rules. */
    public static final int REPORTS_TENANTS = 2;
    /** The server-side sleep of each transaction, before its one-row UPDATE. */
    public static final Duration HOLD = Duration.ofMillis(20);
    /** {@code reports}' offered load: {@value} × what its own B serves of the sleep alone. */
    public static final double REPORTS_OVERLOAD = 4;
    /** {@code orders}' normal load: this share of what its own B serves of the sleep alone. */
    public static final double ORDERS_SHARE = 0.5;
    /** The borrower's goodput while the owner is idle, with lending, at least this many times without. */
    public static final double GOODPUT_TARGET = 1.8;
    /** The owner's p99 from one second after it returns, with lending, at most this many times without. */
    public static final double P99_TARGET = 1.2;
    /** How long after the owner's return its latency is first judged. */
    public static final Duration SETTLE = Duration.ofSeconds(1);
    static final String APPLICATION_NAME = "db-bulkhead-lending";

    private LendingScenario() {
    }

    /** A warm-up run with lending (not reported), then each run's phase A and phase B, then the drain. */
    public record Timing(Duration warmUp, Duration phaseA, Duration phaseB, Duration drain) {

        /** About 1.5 minutes in all. */
        public static final Timing FULL = new Timing(Duration.ofSeconds(5), Duration.ofSeconds(15),
                Duration.ofSeconds(20), Duration.ofSeconds(3));
        /** For trying the harness: fractions of a second per phase, enough for the windows to exist. */
        public static final Timing QUICK = new Timing(Duration.ofMillis(200), Duration.ofMillis(500),
                Duration.ofMillis(1_300), Duration.ofSeconds(1));

        Duration window() {
            return phaseA.plus(phaseB);
        }
    }

    /** The runs, without lending first, and when they ran. */
    public record Result(Timing timing, LendingRun without, LendingRun with, Instant began, Instant ended) {
    }

    public static double reportsPerSecond() {
        return REPORTS_OVERLOAD * REPORTS_B / seconds(HOLD);
    }

    public static double ordersPerSecond() {
        return ORDERS_SHARE * ORDERS_B / seconds(HOLD);
    }

    public static Result run(Timing timing) throws Exception {
        return run(timing, AdmissionRules.none());
    }

    /**
     * The scenario with {@code reportsRules} on the borrower's gate in both runs; with rules, its calls are split
     * between {@value #REPORTS_TENANTS} keys in turn, so that fair shares have tenants to share between.
     *
     * @throws IllegalArgumentException when this build refuses lending and admission rules in one workload
     */
    public static Result run(Timing timing, AdmissionRules reportsRules) throws Exception {
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        try (HikariDataSource pool = database.pool(ORDERS_B + REPORTS_B + POOL_HEADROOM, Duration.ofSeconds(1),
                APPLICATION_NAME)) {
            endSetupTransactions(pool, ORDERS_B + REPORTS_B + POOL_HEADROOM);
            load(database, pool, true, new Timing(Duration.ZERO, timing.warmUp(), Duration.ZERO, timing.drain()),
                    reportsRules);
            LendingRun without = load(database, pool, false, timing, reportsRules);
            LendingRun with = load(database, pool, true, timing, reportsRules);
            return new Result(timing, without, with, began, Instant.now());
        }
    }

    private static LendingRun load(BenchDatabase database, HikariDataSource pool, boolean lending, Timing timing,
                                   AdmissionRules reportsRules) throws Exception {
        RunConditions.settleHeap();
        LendingPool ledger = new LendingPool("primary");
        AdmissionGate orders = gate(ORDERS, ORDERS_BUDGET,
                lending ? GateLending.of(ledger, 0, true) : GateLending.none(), AdmissionRules.none());
        AdmissionGate reports = gate(REPORTS, REPORTS_BUDGET,
                lending ? GateLending.of(ledger, REPORTS_BORROW, false) : GateLending.none(), reportsRules);
        Occupancy occupancy = new Occupancy();
        JdbcBulkhead ordersBulkhead = new JdbcBulkhead(orders, pool);
        JdbcBulkhead reportsBulkhead = new JdbcBulkhead(reports, pool);
        InsideWork inside = new InsideWork();
        List<LoadStream> streams = List.of(
                BenchDatabase.callers(REPORTS, reportsPerSecond(), keyedInTurn(reportsRules,
                        inside.counting(reportsBulkhead)), HOLD, occupancy),
                BenchDatabase.callers(ORDERS, new StartingAt(timing.phaseA(), Arrivals.steady(ordersPerSecond())),
                        inside.counting(ordersBulkhead), HOLD, occupancy));
        Map<String, CallLog> logs;
        SessionSampler sampler = new SessionSampler(database.database(), APPLICATION_NAME);
        try {
            logs = OpenLoopLoad.run(streams, timing.window(), timing.drain(), occupancy);
        } finally {
            sampler.close();
        }
        return new LendingRun(lending ? "with lending (borrow " + REPORTS_BORROW + ")" : "without lending (borrow 0)",
                timing, logs.get(REPORTS), logs.get(ORDERS), sampler.serverPeak(), inside.peak(),
                sampler.samples(), ledger.inUse(), RunConditions.loadAverage());
    }

    /**
     * Commits the transaction HikariCP leaves open on each new connection when it sets the schema with auto-commit off
     * (its {@code SET SESSION search_path}): unused, such a session would show {@code idle in transaction} all run
     * long.
     */
    static void endSetupTransactions(HikariDataSource pool, int size) throws SQLException {
        Connection[] held = new Connection[size];
        try {
            for (int i = 0; i < size; i++) {
                held[i] = pool.getConnection();
                held[i].commit();
            }
        } finally {
            for (Connection connection : held) {
                if (connection != null) {
                    connection.close();
                }
            }
        }
    }

    /** Counts the operations inside their transaction's work, on a connection, and keeps the most at once exactly. */
    private static final class InsideWork {
        private final AtomicInteger now = new AtomicInteger();
        private final LongAccumulator peak = new LongAccumulator(Math::max, 0);

        GuardedTransactions counting(JdbcBulkhead bulkhead) {
            return new GuardedTransactions() {
                @Override
                public <T> T transaction(SqlWork<T> work) throws SQLException {
                    return bulkhead.transaction(connection -> {
                        peak.accumulate(now.incrementAndGet());
                        try {
                            return work.run(connection);
                        } finally {
                            now.decrementAndGet();
                        }
                    });
                }
            };
        }

        int peak() {
            return (int) peak.get();
        }
    }

    private static AdmissionGate gate(String name, Budget budget, GateLending lending, AdmissionRules rules) {
        return new AdmissionGate(name, GateConfig.builder()
                .maxConcurrent(budget.maxConcurrent())
                .maxQueued(budget.maxQueued())
                .queueWait(budget.queueWait())
                .admissionRules(rules)
                .lending(lending)
                .build());
    }

    /** {@code transactions} as they are without rules; with rules, each call bound to the next of the keys in turn. */
    private static GuardedTransactions keyedInTurn(AdmissionRules rules, GuardedTransactions transactions) {
        if (rules.isNone()) {
            return transactions;
        }
        AtomicInteger calls = new AtomicInteger();
        return new GuardedTransactions() {
            @Override
            public <T> T transaction(SqlWork<T> work) throws Exception {
                String key = REPORTS + "-tenant-" + Math.floorMod(calls.getAndIncrement(), REPORTS_TENANTS);
                try (OperationClass.Scope bound = OperationClass.of(Criticality.DEFAULT, key).bind()) {
                    return transactions.transaction(work);
                }
            }
        };
    }

    static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}
