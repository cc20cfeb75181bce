package dev.dbbulkhead.benchmarks.retry;

import java.util.concurrent.atomic.LongAdder;

/** What the clients of one run sent and got back, counted per attempt; summed after the run. */
final class AttemptCounts {

    final LongAdder firstAttempts = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder ok = new LongAdder();
    final LongAdder serviceUnavailable = new LongAdder();
    /** Retries the attempts allowed and the rule refused: with a budget, what it saved the server. */
    final LongAdder retriesRefused = new LongAdder();
}
