package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.benchmarks.load.LatencySummary;
import java.time.Duration;
import java.util.List;

/**
 * The overload scenario: every guard under the same offered load.
 *
 * @param poolSize             P
 * @param transactionSleep     the server-side sleep in each transaction
 * @param unloadedCost         the transaction's latency measured alone, one at a time, on the same pool
 * @param capacityPerSecond    what the pool can commit at most: P / the unloaded median cost
 * @param closedLoopPerSecond  what the pool committed with P callers back to back and nothing else running
 * @param offeredPerSecond     the arrival rate offered to every guard
 * @param budget               B, Q and the queue wait given to the guards that have such settings
 * @param slo                  the latency a commit must stay within to count as goodput: queue wait + cost
 * @param window               how long load was offered to each guard
 * @param runs                 one per guard, in the order run
 */
public record OverloadResult(int poolSize, Duration transactionSleep, LatencySummary unloadedCost,
                             double capacityPerSecond, double closedLoopPerSecond, double offeredPerSecond, Budget budget, Duration slo,
                             Duration window, List<GuardRun> runs) {
}
