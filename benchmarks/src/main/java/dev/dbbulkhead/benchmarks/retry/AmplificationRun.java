package dev.dbbulkhead.benchmarks.retry;

import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import java.time.Duration;
import java.util.Map;

/**
 * One run of the retry-amplification scenario: what the clients sent, what they got, how fast the successes were.
 * The counts cover every request that arrived in the window, followed to its end.
 *
 * @param clients        how the clients retried ({@link RetryRule#label()})
 * @param firstAttempts  requests, each counted once
 * @param retries        attempts after the first
 * @param retriesRefused retries the attempts allowed and the rule refused
 * @param ok             200 answers
 * @param refusedAnswers 503 answers
 * @param goodput        200 answers per second of the window, counting requests that ended within it
 * @param successes      latency of the requests that ended with a 200, from their first attempt
 * @param outcomes       how the requests ended, as the load harness counts them
 * @param firstFailure   the first failure of an unexpected kind, or null
 * @param loadAverage    the machine's 1-minute load average at the end of the run
 */
record AmplificationRun(String clients, long firstAttempts, long retries, long retriesRefused, long ok,
                        long refusedAnswers, double goodput, LatencySummary successes, Map<Outcome, Integer> outcomes,
                        Throwable firstFailure, double loadAverage) {

    static AmplificationRun of(String clients, AttemptCounts counts, CallLog log, Duration window,
                               double loadAverage) {
        return new AmplificationRun(clients, counts.firstAttempts.sum(), counts.retries.sum(),
                counts.retriesRefused.sum(), counts.ok.sum(), counts.serviceUnavailable.sum(),
                log.committedEndingBetween(0, window.toNanos(), -1) / (window.toNanos() / 1e9),
                LatencySummary.ofNanos(log.latencies(Outcome.COMMITTED)), log.counts(), log.firstFailure(),
                loadAverage);
    }

    /** Every request sent: first attempts and retries. */
    long sent() {
        return firstAttempts + retries;
    }

    /** The offered load over the first attempts: 1 when nothing is retried. */
    double amplification() {
        return firstAttempts == 0 ? Double.NaN : (double) sent() / firstAttempts;
    }

    /** How many requests ended one way. */
    int count(Outcome outcome) {
        return outcomes.getOrDefault(outcome, 0);
    }
}
