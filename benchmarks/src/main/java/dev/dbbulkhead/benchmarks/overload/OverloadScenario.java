package dev.dbbulkhead.benchmarks.overload;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.alternatives.ConcurrencyLimitedCalls;
import dev.dbbulkhead.benchmarks.alternatives.SpringResilience;
import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 2: a pool of P connections, a transaction of known cost, and virtual-thread callers offering
 * {@value #OVERLOAD_FACTOR}× what the pool can commit. Each guard gets a fresh pool of the same configuration.
 */
public final class OverloadScenario {

    /** P, and B for every guard that has a concurrency limit. */
    public static final int POOL_SIZE = ConcurrencyLimitedCalls.POOL_SIZED_LIMIT;
    /** Offered load over the pool's capacity. */
    public static final int OVERLOAD_FACTOR = 10;
    /** The server-side sleep of the transaction of known cost. */
    public static final Duration TRANSACTION_SLEEP = Duration.ofMillis(10);
    /** B, Q and the queue wait of every guard that has such settings. */
    public static final Budget BUDGET = new Budget(POOL_SIZE, 2 * POOL_SIZE, Duration.ofMillis(50));
    /** The guards compared in this scenario, in the order run. */
    public static final List<TransactionGuard> GUARDS = List.of(TransactionGuard.NONE, TransactionGuard.RESILIENCE4J,
            TransactionGuard.SPRING_REJECT, TransactionGuard.SPRING_BLOCK, TransactionGuard.DB_BULKHEAD);
    /** {@value #OVERLOAD_FACTOR}× what P connections commit of the transaction's sleep alone, steadily. */
    public static final Arrivals OFFERED =
            Arrivals.steady(OVERLOAD_FACTOR * POOL_SIZE / (TRANSACTION_SLEEP.toNanos() / 1e9));
    private static final long TIME_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private OverloadScenario() {
    }

    /** Runs every given guard in turn under the same load. */
    public static OverloadResult run(ScenarioSettings settings, List<TransactionGuard> guards)
            throws SQLException, InterruptedException {
        BenchDatabase database = BenchDatabase.create();
        LatencySummary cost = calibrate(database, settings);
        double capacity = capacity(cost);
        Duration slo = slo(cost);
        List<GuardRun> runs = new ArrayList<>();
        try (SpringResilience spring = new SpringResilience()) {
            for (TransactionGuard guard : guards) {
                runs.add(runGuard(database, settings, guard, spring, OFFERED, settings.window(), slo, "overload"));
            }
        }
        // After the guards, so that it runs on compiled code as they did.
        double closedLoop = closedLoop(database, settings);
        return new OverloadResult(POOL_SIZE, TRANSACTION_SLEEP, cost, capacity, closedLoop, OFFERED.perSecond(),
                BUDGET, slo, settings.window(), runs);
    }

    /** The physical ceiling: P / the transaction's unloaded median cost, in commits per second. */
    public static double capacity(LatencySummary cost) {
        return POOL_SIZE / (cost.p50() / 1000.0);
    }

    /** The latency a commit must stay within to count as goodput: queue wait + the unloaded median cost. */
    public static Duration slo(LatencySummary cost) {
        return BUDGET.queueWait().plusNanos((long) (cost.p50() * 1_000_000));
    }

    /** The transaction's cost alone: one at a time on an idle pool. */
    public static LatencySummary calibrate(BenchDatabase database, ScenarioSettings settings) throws SQLException {
        try (HikariDataSource pool = database.pool(POOL_SIZE, settings.poolTimeout(), "calibration")) {
            long[] nanos = new long[settings.calibrationCalls()];
            for (int i = 0; i < nanos.length; i++) {
                long start = System.nanoTime();
                PlainTransaction.run(pool, connection -> BenchDatabase.sleepAndUpdate(connection, TRANSACTION_SLEEP));
                nanos[i] = System.nanoTime() - start;
            }
            return LatencySummary.ofNanos(nanos);
        }
    }

    /**
     * What the pool commits per second with exactly P callers running the transaction back to back and nothing
     * else: no flood, no guard, no waiting for a connection. The gap between this and P / cost is what the
     * machine loses between transactions (commit, return, the next borrow); the gap between a guard under the flood
     * and this is what the flood and the guard cost. Measured last, on a JVM as warm as the guards ran on: measured
     * first, it paid for compiling the driver's and the pool's code and came out a few percent low.
     */
    public static double closedLoop(BenchDatabase database, ScenarioSettings settings)
            throws SQLException, InterruptedException {
        try (HikariDataSource pool = database.pool(POOL_SIZE, settings.poolTimeout(), "closed-loop")) {
            long end = System.nanoTime() + settings.window().toNanos();
            AtomicLong committed = new AtomicLong();
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < POOL_SIZE; i++) {
                callers.add(Thread.ofVirtual().start(() -> {
                    try {
                        while (System.nanoTime() - end < 0) {
                            PlainTransaction.run(pool, connection ->
                                    BenchDatabase.sleepAndUpdate(connection, TRANSACTION_SLEEP));
                            if (System.nanoTime() - end < 0) {
                                committed.incrementAndGet();
                            }
                        }
                    } catch (SQLException failure) {
                        throw new IllegalStateException("closed-loop transaction failed", failure);
                    }
                }));
            }
            for (Thread caller : callers) {
                caller.join();
            }
            return committed.get() / (settings.window().toNanos() / 1e9);
        }
    }

    /**
     * One guard with {@link #BUDGET} on a fresh pool of P connections, offered the transaction of known cost on
     * {@code arrivals} for {@code window}; {@code scenario} names the pool and the guard's workload.
     */
    public static GuardRun runGuard(BenchDatabase database, ScenarioSettings settings, TransactionGuard guard,
                                    SpringResilience spring, Arrivals arrivals, Duration window, Duration slo,
                                    String scenario) throws SQLException, InterruptedException {
        return runGuard(database, settings, guard, spring, arrivals, window, Duration.ZERO, slo, scenario);
    }

    /**
     * As {@link #runGuard(BenchDatabase, ScenarioSettings, TransactionGuard, SpringResilience, Arrivals, Duration,
     * Duration, String)}, judging the steady state only: the success latencies, goodput and p99 over time count the
     * calls started from {@code onset} on (goodput: the commits that ended then), while every call of the window is
     * still counted by outcome and refusal.
     */
    public static GuardRun runGuard(BenchDatabase database, ScenarioSettings settings, TransactionGuard guard,
                                    SpringResilience spring, Arrivals arrivals, Duration window, Duration onset,
                                    Duration slo, String scenario) throws SQLException, InterruptedException {
        try (HikariDataSource pool = database.pool(POOL_SIZE, settings.poolTimeout(), scenario + "-" + guard.name())) {
            GuardedTransactions transactions = guard.open(scenario, pool, BUDGET, spring);
            Occupancy occupancy = new Occupancy();
            LoadStream callers = BenchDatabase.callers(guard.label(), arrivals, transactions, TRANSACTION_SLEEP,
                    occupancy);
            RunConditions.settleHeap();
            CallLog log = OpenLoopLoad.run(List.of(callers), window, drainBudget(settings), occupancy)
                    .get(guard.label());
            long windowNanos = window.toNanos();
            long onsetNanos = onset.toNanos();
            double measuredSeconds = (windowNanos - onsetNanos) / 1e9;
            return new GuardRun(guard, log.offered(), log.counts(), log.refusalsByReason(),
                    transactions.shedCount(),
                    log.committedEndingBetween(onsetNanos, windowNanos, -1) / measuredSeconds,
                    log.committedEndingBetween(onsetNanos, windowNanos, slo.toNanos()) / measuredSeconds,
                    LatencySummary.ofNanos(log.latenciesStartedBetween(onsetNanos, Long.MAX_VALUE,
                            Outcome.COMMITTED)),
                    LatencySummary.ofNanos(log.latencies(Outcome.REJECTED, Outcome.POOL_TIMEOUT)),
                    occupancy.parkedPeak(), occupancy.meanExecuting(), occupancy.heapPeakBytes(),
                    successP99OverTime(log, windowNanos),
                    parkedOverTime(occupancy), RunConditions.loadAverage(), log.firstFailure());
        }
    }

    /** Long enough for every bounded wait to end: the pool's timeout, the queue wait, and a transaction. */
    static Duration drainBudget(ScenarioSettings settings) {
        return settings.poolTimeout().plus(BUDGET.queueWait()).plusSeconds(1);
    }

    private static List<double[]> successP99OverTime(CallLog log, long windowNanos) {
        List<double[]> points = new ArrayList<>();
        for (long from = 0; from < windowNanos; from += TIME_SLICE_NANOS) {
            long[] slice = log.latenciesStartedBetween(from, from + TIME_SLICE_NANOS, Outcome.COMMITTED);
            if (slice.length > 0) {
                LatencySummary summary = LatencySummary.ofNanos(slice);
                points.add(new double[] {(from + TIME_SLICE_NANOS / 2.0) / 1e9, summary.p99()});
            }
        }
        return points;
    }

    private static List<double[]> parkedOverTime(Occupancy occupancy) {
        List<double[]> points = new ArrayList<>();
        for (long[] sample : occupancy.parkedSamples()) {
            points.add(new double[] {sample[0] / 1e9, sample[1]});
        }
        return points;
    }
}
