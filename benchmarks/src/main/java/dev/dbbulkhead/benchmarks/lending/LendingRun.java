package dev.dbbulkhead.benchmarks.lending;

import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import java.util.Map;

/**
 * One run of the lending scenario, with or without lending.
 *
 * @param label       how the run is named in the tables
 * @param reports     every call of the borrower, over both phases
 * @param orders      every call of the owner, all in phase B
 * @param serverPeak  the most busy sessions of the pool {@code pg_stat_activity} showed at a sample
 * @param insidePeak  the most operations inside their transaction's work at once, counted by the callers
 * @param samples     how many samples were taken
 * @param ledgerAfter places still taken on the pool's ledger after the run (0 when every place came back)
 * @param loadAverage the machine's 1-minute load average when the run ended
 */
public record LendingRun(String label, LendingScenario.Timing timing, CallLog reports, CallLog orders, int serverPeak,
                         int insidePeak, int samples, long ledgerAfter, double loadAverage) {

    private long returnNanos() {
        return timing.phaseA().toNanos();
    }

    private long endNanos() {
        return timing.window().toNanos();
    }

    /** {@code reports}' commits per second while {@code orders} is idle (phase A). */
    public double reportsGoodputAlone() {
        return reports.committedEndingBetween(0, returnNanos(), -1) / LendingScenario.seconds(timing.phaseA());
    }

    /** {@code reports}' commits per second once {@code orders} is back (phase B). */
    public double reportsGoodputBeside() {
        return reports.committedEndingBetween(returnNanos(), endNanos(), -1)
                / LendingScenario.seconds(timing.phaseB());
    }

    /** Latencies of {@code orders}' committed calls started from its return to the end of the window. */
    public LatencySummary ordersFromReturn() {
        return LatencySummary.ofNanos(orders.latenciesStartedBetween(returnNanos(), endNanos(), Outcome.COMMITTED));
    }

    /** Latencies of {@code orders}' committed calls started in the first second after its return. */
    public LatencySummary ordersFirstSecond() {
        return LatencySummary.ofNanos(orders.latenciesStartedBetween(returnNanos(),
                returnNanos() + LendingScenario.SETTLE.toNanos(), Outcome.COMMITTED));
    }

    /** Latencies of {@code orders}' committed calls started one second or more after its return. */
    public LatencySummary ordersAfterSettling() {
        return LatencySummary.ofNanos(orders.latenciesStartedBetween(returnNanos() + LendingScenario.SETTLE.toNanos(),
                endNanos(), Outcome.COMMITTED));
    }

    public Map<Outcome, Integer> reportsCounts() {
        return reports.counts();
    }

    public Map<Outcome, Integer> ordersCounts() {
        return orders.counts();
    }
}
