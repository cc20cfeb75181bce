package dev.dbbulkhead.benchmarks.adaptive;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.adaptive.Contender.Guarded;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.PlainTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario 4: where too much concurrency hurts. A CPU-bound (or lock-bound) transaction on the same PostgreSQL (its
 * CPUs are the machine's), a pool of P = {@value #POOL_SIZE}, callers arriving open-loop at twice what the server
 * can serve, and no queue (Q = 0) for any contender. First a sweep of fixed B against the adaptive limit and
 * Gradient2; then a run per contender in which an ungated competing load runs the same transaction for a while,
 * then stops.
 */
public final class AdaptiveScenario {

    /** P, and the ceiling (and start) of both adaptive limits. */
    public static final int POOL_SIZE = 20;
    /** The fixed B of the sweep. */
    static final int[] FIXED_LIMITS = {1, 2, 4, 8, 16, 20};
    /** What the transaction costs on an idle server, roughly: calibrated by the number of rows hashed. */
    static final Duration TARGET_COST = Duration.ofMillis(5);
    static final Duration POOL_TIMEOUT = Duration.ofSeconds(2);
    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    /** Offered load over what the server serves at the unloaded cost. */
    static final int OVERLOAD_FACTOR = 2;

    /** The transaction, and how many of it the server runs in parallel at best. */
    public enum Work {
        /** Hashes integers, then updates a random row: as many at once as there are CPUs. */
        CPU_BOUND("adaptive", "hashes %,d integers on the server, then updates one random row", CPUS, 2 * CPUS),
        /** Updates the one hot row, then hashes integers holding its lock: one at a time. */
        LOCK_BOUND("adaptive-lock", "updates the one hot row, then hashes %,d integers on the server while"
                + " holding its lock until commit", 1, CPUS);

        private final String file;
        private final String description;
        private final int parallel;
        private final int competing;

        Work(String file, String description, int parallel, int competing) {
            this.file = file;
            this.description = description;
            this.parallel = parallel;
            this.competing = competing;
        }

        /** The base name of the report's files. */
        public String file() {
            return file;
        }

        /** What the transaction does, for {@code rows}. */
        String describe(int rows) {
            return String.format(Locale.ROOT, description, rows);
        }

        /** Transactions the server runs in parallel at best. */
        int parallel() {
            return parallel;
        }

        /** Connections of the ungated competing load, each running the transaction back to back. */
        int competing() {
            return competing;
        }

        long run(Connection connection, int rows) throws SQLException {
            return this == CPU_BOUND ? BenchDatabase.hashAndUpdate(connection, rows)
                    : BenchDatabase.lockAndHash(connection, rows);
        }
    }
    private static final long LIMIT_SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int CALIBRATION_CALLS = 50;

    /**
     * How long each part lasts, in seconds.
     *
     * @param warmUp      of a sweep run, not measured (the adaptive limits start at P and learn)
     * @param measured    of a sweep run, measured
     * @param undisturbed of a change run, before the competing load starts
     * @param disturbed   of a change run, while the competing load runs
     * @param after       of a change run, after it stopped
     * @param slice       of the p99-over-time chart
     */
    public record Timing(double warmUp, double measured, double undisturbed, double disturbed, double after,
                         double slice) {

        /** What the report is made of: about three and a half minutes per kind of work. */
        public static final Timing FULL = new Timing(3, 7, 10, 10, 12, 0.5);
        /** For trying the harness: numbers mean nothing. */
        public static final Timing QUICK = new Timing(0.2, 0.4, 0.4, 0.4, 0.4, 0.2);

        double changeWindow() {
            return undisturbed + disturbed + after;
        }
    }

    /**
     * Everything measured.
     *
     * @param timing     how long each part lasted
     * @param work       the transaction
     * @param rows       integers hashed per transaction
     * @param cost       the transaction alone on an idle server
     * @param offered    arrivals per second
     * @param cpus       processors the machine reports
     * @param sweep      fixed B = 1, 2, 4, 8, 16, 20, then adaptive, then Gradient2
     * @param change     adaptive, fixed B = P, Gradient2, under the competing load in the middle
     * @param loadAverage the one-minute load average after the runs
     */
    public record Result(Timing timing, Work work, int rows, LatencySummary cost, double offered, int cpus, List<LimitRun> sweep,
                         List<LimitRun> change, double loadAverage) {
    }

    private AdaptiveScenario() {
    }

    /** Runs the sweep, then the change runs, of {@code work}. */
    public static Result run(Timing timing, Work work) throws SQLException, InterruptedException {
        BenchDatabase database = BenchDatabase.create();
        int rows;
        LatencySummary cost;
        try (HikariDataSource pool = database.pool(1, POOL_TIMEOUT, "calibration")) {
            rows = calibrateRows(pool, work);
            cost = measure(pool, work, rows);
        }
        double offered = OVERLOAD_FACTOR * work.parallel() / (cost.p50() / 1000.0);
        List<Contender> sweep = new ArrayList<>();
        for (int maxConcurrent : FIXED_LIMITS) {
            sweep.add(Contender.fixed(maxConcurrent));
        }
        sweep.add(Contender.adaptive(POOL_SIZE));
        sweep.add(Contender.gradient2(POOL_SIZE));
        List<LimitRun> sweepRuns = new ArrayList<>();
        for (Contender contender : sweep) {
            sweepRuns.add(runOne(database, work, contender, rows, offered, timing.warmUp() + timing.measured(),
                    null));
        }
        List<LimitRun> changeRuns = new ArrayList<>();
        for (Contender contender : List.of(Contender.adaptive(POOL_SIZE), Contender.fixed(POOL_SIZE),
                Contender.gradient2(POOL_SIZE))) {
            changeRuns.add(runOne(database, work, contender, rows, offered, timing.changeWindow(), timing));
        }
        return new Result(timing, work, rows, cost, offered, CPUS, sweepRuns, changeRuns, RunConditions.loadAverage());
    }

    /** The rows to hash for about {@link #TARGET_COST} on the idle server. */
    static int calibrateRows(HikariDataSource pool, Work work) throws SQLException {
        int trial = 50_000;
        double millis = measure(pool, work, trial).p50();
        long scaled = Math.round(trial * TARGET_COST.toNanos() / 1e6 / millis);
        return (int) Math.max(1_000, Math.min(5_000_000, scaled));
    }

    static LatencySummary measure(HikariDataSource pool, Work work, int rows) throws SQLException {
        long[] nanos = new long[CALIBRATION_CALLS];
        for (int i = 0; i < nanos.length; i++) {
            long start = System.nanoTime();
            PlainTransaction.run(pool, connection -> work.run(connection, rows));
            nanos[i] = System.nanoTime() - start;
        }
        return LatencySummary.ofNanos(nanos);
    }

    /**
     * One contender on a fresh pool for {@code windowSeconds}; with {@code disturbance}, the competing load runs from
     * its undisturbed to its disturbed part.
     */
    static LimitRun runOne(BenchDatabase database, Work work, Contender contender, int rows,
                                   double offered, double windowSeconds, Timing disturbance)
            throws SQLException, InterruptedException {
        try (HikariDataSource pool = database.pool(POOL_SIZE, POOL_TIMEOUT, "adaptive-" + contender.label());
             HikariDataSource competing = database.pool(work.competing(), POOL_TIMEOUT, "competing")) {
            Guarded guarded = contender.open().apply(pool);
            try {
                return measureOne(contender, work, rows, offered, windowSeconds, disturbance, guarded, competing);
            } finally {
                guarded.close().run();
            }
        }
    }

    private static LimitRun measureOne(Contender contender, Work work, int rows, double offered, double windowSeconds,
                                       Timing disturbance, Guarded guarded, HikariDataSource competing)
            throws InterruptedException {
        LoadStream callers = new LoadStream(contender.label(), offered, () -> guarded.transactions()
                .transaction(connection -> work.run(connection, rows)));
        RunConditions.settleHeap();
        long origin = System.nanoTime();
        List<double[]> limits = new CopyOnWriteArrayList<>();
        Thread sampler = Thread.ofPlatform().daemon().name("limit-sampler").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                limits.add(new double[] {(System.nanoTime() - origin) / 1e9, guarded.limit().getAsInt()});
                LockSupport.parkNanos(LIMIT_SAMPLE_NANOS);
            }
        });
        List<Thread> competitors = disturbance == null ? List.of()
                : startCompeting(competing, work, rows, origin, disturbance);
        CallLog log = OpenLoopLoad.run(List.of(callers), Duration.ofNanos((long) (windowSeconds * 1e9)),
                POOL_TIMEOUT.plusSeconds(1), new Occupancy()).get(contender.label());
        sampler.interrupt();
        sampler.join();
        for (Thread competitor : competitors) {
            competitor.join();
        }
        return new LimitRun(contender.label(), log, List.copyOf(limits));
    }

    /** The ungated competing load: each connection runs the transaction back to back during the disturbed part. */
    static List<Thread> startCompeting(HikariDataSource competing, Work work, int rows, long origin,
                                               Timing timing) {
        long start = origin + (long) (timing.undisturbed() * 1e9);
        long stop = start + (long) (timing.disturbed() * 1e9);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < work.competing(); i++) {
            threads.add(Thread.ofPlatform().daemon().name("competing-" + i).start(() -> {
                LockSupport.parkNanos(start - System.nanoTime());
                while (System.nanoTime() - stop < 0) {
                    try {
                        PlainTransaction.run(competing, connection -> work.run(connection, rows));
                    } catch (SQLException failure) {
                        throw new IllegalStateException("competing transaction failed", failure);
                    }
                }
            }));
        }
        return threads;
    }
}
