package dev.dbbulkhead.benchmarks.load;

import java.time.Duration;

/** Arrivals that begin {@code start} after the run does, then follow {@code after}: a workload that returns. */
public record StartingAt(Duration start, Arrivals after) implements Arrivals {

    @Override
    public long dueBy(long elapsedNanos) {
        long since = elapsedNanos - start.toNanos();
        return since < 0 ? 0 : after.dueBy(since);
    }

    @Override
    public long within(Duration window) {
        return window.compareTo(start) <= 0 ? 0 : after.within(window.minus(start));
    }

    @Override
    public double perSecond() {
        return after.perSecond();
    }
}
