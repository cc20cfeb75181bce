package dev.dbbulkhead.benchmarks.scheduler;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.GateListener;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long the gate's places were held, from admission to release, as the gate itself tells each release: the
 * operation's length as a waiter meets it, which is longer than the work a call asks the server for by the statements,
 * the commit and the hand-back around it.
 */
final class HoldMeter implements GateListener {

    private final LongAdder heldNanos = new LongAdder();
    private final LongAdder releases = new LongAdder();

    @Override
    public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
        this.heldNanos.add(heldNanos);
        releases.increment();
    }

    /** The mean hold so far; zero before the first release. */
    Duration meanHold() {
        long count = releases.sum();
        return count == 0 ? Duration.ZERO : Duration.ofNanos(heldNanos.sum() / count);
    }
}
