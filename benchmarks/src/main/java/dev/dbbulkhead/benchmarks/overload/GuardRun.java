package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One guard's run of the overload scenario.
 *
 * @param guard                       the guard
 * @param offered                     calls started
 * @param counts                      how the calls ended; adds up to {@code offered}
 * @param refusalsByReason            the refused calls (rejected or timed out by the pool) by reason
 * @param shedCount                   waiters the guard's queue discipline refused early; empty for other guards
 * @param committedPerSecond          commits that ended within the window, per second
 * @param committedWithinSloPerSecond of those, the ones that took at most the SLO, per second
 * @param successes                   latency of the committed calls
 * @param refusals                    latency of the calls refused by the guard or timed out by the pool
 * @param parkedPeak                  the most callers in flight but not executing, at once
 * @param meanExecuting               callers executing (holding a connection), averaged over 10 ms samples
 * @param heapPeakBytes               the most heap in use at a 10 ms sample
 * @param successP99OverTime          (seconds since start, p99 ms of the commits started in that slice)
 * @param parkedOverTime              (seconds since start, callers parked)
 * @param loadAverage                 the machine's 1-minute load average at the end of the run
 * @param firstFailure                the first unexpected failure ({@link Outcome#FAILED}), or null
 */
public record GuardRun(TransactionGuard guard, int offered, Map<Outcome, Integer> counts,
                       Map<String, Integer> refusalsByReason, OptionalLong shedCount, double committedPerSecond,
                       double committedWithinSloPerSecond, LatencySummary successes, LatencySummary refusals,
                       long parkedPeak, double meanExecuting, long heapPeakBytes, List<double[]> successP99OverTime,
                       List<double[]> parkedOverTime, double loadAverage,
                       Throwable firstFailure) {

    /** Calls that ended the given way. */
    public int count(Outcome outcome) {
        return counts.getOrDefault(outcome, 0);
    }

    /** Calls refused by the guard or timed out by the pool. */
    public int refused() {
        return Outcome.refused(counts);
    }
}
