package dev.dbbulkhead.benchmarks.load;

import java.time.Duration;

/**
 * When the calls of an open-loop stream arrive: how many are due by a moment of the run, whatever the system does
 * with them. The schedule is fixed in advance, so every guard is offered exactly the same arrivals.
 */
public interface Arrivals {

    /** Calls due by {@code elapsedNanos} after the run began (the first ones are due at once). */
    long dueBy(long elapsedNanos);

    /** Calls due before {@code window} has passed: the most a run of that length starts. */
    long within(Duration window);

    /** Calls per second, averaged over a long run. */
    double perSecond();

    /** One call every 1 / {@code perSecond} seconds. */
    static Arrivals steady(double perSecond) {
        return new Arrivals() {
            @Override
            public long dueBy(long elapsedNanos) {
                return (long) (perSecond * elapsedNanos / 1e9) + 1;
            }

            @Override
            public long within(Duration window) {
                return (long) Math.ceil(perSecond * window.toNanos() / 1e9) + 1;
            }

            @Override
            public double perSecond() {
                return perSecond;
            }
        };
    }

    /**
     * {@code size} calls at once every {@code period}, the first burst at the start: regularly spaced, so that every
     * burst meets the system as the previous one left it after the same time.
     */
    static Arrivals bursts(int size, Duration period) {
        if (size < 1 || !period.isPositive()) {
            throw new IllegalArgumentException("bursts need a size of at least 1 and a positive period, were " + size
                    + " and " + period);
        }
        long periodNanos = period.toNanos();
        return new Arrivals() {
            @Override
            public long dueBy(long elapsedNanos) {
                return size * (elapsedNanos / periodNanos + 1);
            }

            @Override
            public long within(Duration window) {
                return size * ((window.toNanos() + periodNanos - 1) / periodNanos);
            }

            @Override
            public double perSecond() {
                return size * 1e9 / periodNanos;
            }
        };
    }
}
