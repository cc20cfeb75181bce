package dev.dbbulkhead.benchmarks.lending;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.LendingPool;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Two borrowers that both queue, beside an idle lender, on real PostgreSQL: {@code orders} (B = {@value #ORDERS_B})
 * lends and offers no load; {@code reports} (B = {@value #REPORTS_B}) and {@code exports} (B = {@value #EXPORTS_B})
 * may each borrow all {@value #ORDERS_B} of its places, and each is offered what the whole pool serves, so that both
 * always have work queued ({@value #QUEUED} places, {@code 250 ms} queue wait). Two runs on one database: without
 * lending, then with it. What it shows: whether a borrower's queued work runs on the places the lender leaves idle, and
 * how the borrowers split them — by their B, 2 and 6 of the 8 — with the busy sessions the server shows never above
 * Σ B.
 */
public final class BorrowersScenario {

    public static final String REPORTS = "reports";
    public static final String EXPORTS = "exports";
    public static final int ORDERS_B = 8;
    public static final int REPORTS_B = 1;
    public static final int EXPORTS_B = 3;
    public static final int SUM_B = ORDERS_B + REPORTS_B + EXPORTS_B;
    static final int QUEUED = 8;
    static final Duration QUEUE_WAIT = Duration.ofMillis(250);
    /** The borrowers' goodput with lending, at least this many times without (Σ B against their own B: 3 ×). */
    public static final double GOODPUT_TARGET = 2.0;
    /** {@code reports}' share of the borrowers' commits: its own place and a quarter of the lent ones, of Σ B. */
    public static final double REPORTS_SHARE = (REPORTS_B + ORDERS_B * (double) REPORTS_B / (REPORTS_B + EXPORTS_B))
            / SUM_B;
    /** How far {@code reports}' share may be from {@link #REPORTS_SHARE}, in share points. */
    public static final double SHARE_TOLERANCE = 0.05;
    private static final int POOL_HEADROOM = 4;
    private static final String APPLICATION_NAME = "db-bulkhead-borrowers";

    private BorrowersScenario() {
    }

    /** One run: each borrower's calls, the busy sessions the server showed at most, and the 1-minute load average. */
    public record Run(String label, Duration window, CallLog reports, CallLog exports, int serverPeak, int samples,
                      double loadAverage) {

        public double reportsPerSecond() {
            return committed(reports) / LendingScenario.seconds(window);
        }

        public double exportsPerSecond() {
            return committed(exports) / LendingScenario.seconds(window);
        }

        /** {@code reports}' share of the two borrowers' commits. */
        public double reportsShare() {
            int both = committed(reports) + committed(exports);
            return both == 0 ? Double.NaN : (double) committed(reports) / both;
        }

        private int committed(CallLog log) {
            return log.committedEndingBetween(0, window.toNanos(), -1);
        }
    }

    /** Both runs, without lending first, and when they ran. */
    public record Result(Run without, Run with, Instant began, Instant ended) {

        public double goodputRatio() {
            return (with.reportsPerSecond() + with.exportsPerSecond())
                    / (without.reportsPerSecond() + without.exportsPerSecond());
        }
    }

    /** A warm-up with lending (not reported), then each run for {@code window}, each drained within {@code drain}. */
    public static Result run(Duration warmUp, Duration window, Duration drain) throws Exception {
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        try (HikariDataSource pool = database.pool(SUM_B + POOL_HEADROOM, Duration.ofSeconds(1), APPLICATION_NAME)) {
            LendingScenario.endSetupTransactions(pool, SUM_B + POOL_HEADROOM);
            load(database, pool, true, warmUp, drain);
            Run without = load(database, pool, false, window, drain);
            Run with = load(database, pool, true, window, drain);
            return new Result(without, with, began, Instant.now());
        }
    }

    private static Run load(BenchDatabase database, HikariDataSource pool, boolean lending, Duration window,
                            Duration drain) throws Exception {
        RunConditions.settleHeap();
        LendingPool ledger = new LendingPool("primary");
        // The lender is built, and lends, though it offers no load: its places are the ones to share.
        new AdmissionGate("orders", GateConfig.builder().maxConcurrent(ORDERS_B)
                .lending(lending ? GateLending.of(ledger, 0, true) : GateLending.none()).build());
        AdmissionGate reports = borrower(REPORTS, REPORTS_B, lending ? GateLending.of(ledger, ORDERS_B, false)
                : GateLending.none());
        AdmissionGate exports = borrower(EXPORTS, EXPORTS_B, lending ? GateLending.of(ledger, ORDERS_B, false)
                : GateLending.none());
        Occupancy occupancy = new Occupancy();
        double poolPerSecond = SUM_B / LendingScenario.seconds(LendingScenario.HOLD);
        List<LoadStream> streams = List.of(
                BenchDatabase.callers(REPORTS, poolPerSecond, new JdbcBulkhead(reports, pool)::transaction,
                        LendingScenario.HOLD, occupancy),
                BenchDatabase.callers(EXPORTS, poolPerSecond, new JdbcBulkhead(exports, pool)::transaction,
                        LendingScenario.HOLD, occupancy));
        Map<String, CallLog> logs;
        SessionSampler sampler = new SessionSampler(database.database(), APPLICATION_NAME);
        try {
            logs = OpenLoopLoad.run(streams, window, drain, occupancy);
        } finally {
            sampler.close();
        }
        return new Run(lending ? "with lending (each borrows up to " + ORDERS_B + ")" : "without lending", window,
                logs.get(REPORTS), logs.get(EXPORTS), sampler.serverPeak(), sampler.samples(),
                RunConditions.loadAverage());
    }

    private static AdmissionGate borrower(String name, int maxConcurrent, GateLending lending) {
        return new AdmissionGate(name, GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(QUEUED)
                .queueWait(QUEUE_WAIT).lending(lending).build());
    }
}
