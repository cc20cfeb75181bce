package dev.dbbulkhead.benchmarks.queue;

import dev.dbbulkhead.benchmarks.alternatives.SpringResilience;
import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.GuardRun;
import dev.dbbulkhead.benchmarks.overload.OverloadResult;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.benchmarks.overload.TransactionGuard;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Scenario 5: the gate's queue discipline under both kinds of load, in one run, on the pool, transaction and budget
 * of the overload scenario, each guard on a fresh pool. <b>Sustained</b>: the overload scenario's steady
 * {@value OverloadScenario#OVERLOAD_FACTOR}× flood, where a queue only adds latency. <b>Bursty</b>: on average
 * {@link #BURSTY_SHARE} of the closed-loop ceiling measured in the same run, arriving in bursts of B + Q/2 callers
 * at once, regularly spaced, which a queue absorbs and a guard without one refuses.
 */
public final class QueueScenario {

    /** The guards compared, in the order run: the overload scenario's that refuse, and both disciplines. */
    public static final List<TransactionGuard> GUARDS = List.of(TransactionGuard.NONE, TransactionGuard.RESILIENCE4J,
            TransactionGuard.SPRING_REJECT, TransactionGuard.DB_BULKHEAD, TransactionGuard.DB_BULKHEAD_CODEL);
    /** Callers per burst: B + Q/2, more than B can run at once and fewer than B + Q can admit. */
    public static final int BURST_SIZE = OverloadScenario.BUDGET.maxConcurrent()
            + OverloadScenario.BUDGET.maxQueued() / 2;
    /** The bursty load's average arrival rate, as a share of the closed-loop ceiling. */
    public static final double BURSTY_SHARE = 0.6;
    /**
     * The share of the sustained window, at its start, left out of its latencies and goodput: the sustained part
     * judges the steady state of a flood, not its onset, in which the CoDel discipline serves in arrival order
     * for one to two intervals before it judges the queue standing. Every call is still counted by outcome, and
     * the p99 over time shows the onset.
     */
    public static final int SUSTAINED_ONSET_FRACTION = 5;

    /** How long each part runs. */
    public enum Timing {
        /**
         * The overload scenario's settings for the sustained part (5 s, 50,000 calls per guard); 20 s of bursts, about
         * 400 bursts and 8,000 calls per guard at a ceiling near 700 commits/s.
         */
        FULL(ScenarioSettings.full(), Duration.ofSeconds(20)),
        /** A fraction of a second of each: proves the harness works, numbers mean nothing. */
        QUICK(ScenarioSettings.smoke(), Duration.ofMillis(800));

        private final ScenarioSettings settings;
        private final Duration burstyWindow;

        Timing(ScenarioSettings settings, Duration burstyWindow) {
            this.settings = settings;
            this.burstyWindow = burstyWindow;
        }
    }

    /**
     * Both parts of one run.
     *
     * @param sustained   the steady flood, each guard's run in {@link #GUARDS} order
     * @param bursty      the bursts; its offered rate is their average rate
     * @param burstSize   callers per burst
     * @param burstPeriod time from one burst to the next
     */
    public record Result(OverloadResult sustained, OverloadResult bursty, int burstSize, Duration burstPeriod) {
    }

    private QueueScenario() {
    }

    /**
     * Calibrates the transaction's cost, runs every guard under the steady flood, measures the closed-loop ceiling
     * (after the flood, on code as warm as the guards'), then runs every guard under bursts averaging
     * {@link #BURSTY_SHARE} of that ceiling.
     */
    public static Result run(Timing timing) throws SQLException, InterruptedException {
        ScenarioSettings settings = timing.settings;
        BenchDatabase database = BenchDatabase.create();
        LatencySummary cost = OverloadScenario.calibrate(database, settings);
        double capacity = OverloadScenario.capacity(cost);
        Duration slo = OverloadScenario.slo(cost);
        try (SpringResilience spring = new SpringResilience()) {
            List<GuardRun> sustained = new ArrayList<>();
            for (TransactionGuard guard : GUARDS) {
                sustained.add(OverloadScenario.runGuard(database, settings, guard, spring, OverloadScenario.OFFERED,
                        settings.window(), sustainedOnset(settings.window()), slo, "sustained"));
            }
            double ceiling = OverloadScenario.closedLoop(database, settings);
            Duration period = burstPeriod(ceiling);
            Arrivals bursts = Arrivals.bursts(BURST_SIZE, period);
            List<GuardRun> bursty = new ArrayList<>();
            for (TransactionGuard guard : GUARDS) {
                bursty.add(OverloadScenario.runGuard(database, settings, guard, spring, bursts, timing.burstyWindow,
                        slo, "bursty"));
            }
            return new Result(
                    result(cost, capacity, ceiling, OverloadScenario.OFFERED, slo, settings.window(), sustained),
                    result(cost, capacity, ceiling, bursts, slo, timing.burstyWindow, bursty), BURST_SIZE, period);
        }
    }

    /** The start of the sustained window left out of its latencies and goodput: 1/{@value #SUSTAINED_ONSET_FRACTION}. */
    public static Duration sustainedOnset(Duration window) {
        return window.dividedBy(SUSTAINED_ONSET_FRACTION);
    }

    /** Bursts of {@link #BURST_SIZE} spaced so that they average {@link #BURSTY_SHARE} of {@code ceiling}. */
    static Duration burstPeriod(double ceilingPerSecond) {
        if (!(ceilingPerSecond > 0)) {
            throw new IllegalStateException("the closed loop committed nothing (" + ceilingPerSecond
                    + " commits/s): no capacity to offer bursts against");
        }
        return Duration.ofNanos(Math.round(BURST_SIZE / (BURSTY_SHARE * ceilingPerSecond) * 1e9));
    }

    private static OverloadResult result(LatencySummary cost, double capacity, double ceiling, Arrivals arrivals,
                                         Duration slo, Duration window, List<GuardRun> runs) {
        return new OverloadResult(OverloadScenario.POOL_SIZE, OverloadScenario.TRANSACTION_SLEEP, cost, capacity,
                ceiling, arrivals.perSecond(), OverloadScenario.BUDGET, slo, window, runs);
    }
}
