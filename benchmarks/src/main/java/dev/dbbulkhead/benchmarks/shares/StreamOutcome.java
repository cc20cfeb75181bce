package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.Outcome;
import java.util.Map;

/**
 * How the calls of one stream of a run ended: a tenant's, or one criticality's.
 *
 * @param name             the stream: the tenant, or the criticality
 * @param perSecond        the calls it offered per second
 * @param offered          calls started
 * @param counts           how they ended; adds up to {@code offered}
 * @param refusalsByReason the refused ones by reason
 * @param firstFailure     the first failure of an unexpected kind, or null
 */
record StreamOutcome(String name, double perSecond, int offered, Map<Outcome, Integer> counts,
                     Map<String, Integer> refusalsByReason, Throwable firstFailure) {

    static StreamOutcome of(String name, double perSecond, CallLog log) {
        return new StreamOutcome(name, perSecond, log.offered(), log.counts(), log.refusalsByReason(),
                log.firstFailure());
    }

    /** Calls that ended the given way. */
    int count(Outcome outcome) {
        return counts.getOrDefault(outcome, 0);
    }

    /** Committed calls: the stream's goodput over the run. */
    int committed() {
        return count(Outcome.COMMITTED);
    }

    /** The share of the offered calls that committed. */
    double success() {
        return offered == 0 ? Double.NaN : (double) committed() / offered;
    }

    /** Every offered call counted exactly once. */
    boolean accountsForEveryCall() {
        return counts.values().stream().mapToInt(Integer::intValue).sum() == offered;
    }
}
