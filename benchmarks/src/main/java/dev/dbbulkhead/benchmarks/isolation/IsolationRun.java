package dev.dbbulkhead.benchmarks.isolation;

import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.overload.TransactionGuard;
import java.util.Map;

/**
 * One configuration of the isolation scenario.
 *
 * @param guard          NONE (both workloads straight on the pool) or DB_BULKHEAD (a budget per workload)
 * @param flooded        whether {@code reports} flooded the pool during the run
 * @param ordersOffered  {@code orders} calls started
 * @param orders         how the {@code orders} calls ended
 * @param ordersLatency  latency of the committed {@code orders} calls
 * @param reportsOffered {@code reports} calls started (0 without flood)
 * @param reports        how the {@code reports} calls ended
 * @param loadAverage    the machine's 1-minute load average at the end of the run
 */
public record IsolationRun(TransactionGuard guard, boolean flooded, int ordersOffered, Map<Outcome, Integer> orders,
                           LatencySummary ordersLatency, int reportsOffered, Map<Outcome, Integer> reports,
                           double loadAverage) {
}
