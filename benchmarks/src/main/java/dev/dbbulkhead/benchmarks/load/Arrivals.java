package dev.dbbulkhead.benchmarks.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

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

    /**
     * Calls at {@code perSecond} on average, each gap drawn from the exponential distribution (a Poisson process, as
     * independent users arrive), the same gaps for the same {@code seed}: every guard offered one seed meets the same
     * arrivals. The times are drawn as far as {@link #within} is asked, then further on demand; not thread-safe, as a
     * load generator asks from one thread.
     */
    static Arrivals poisson(double perSecond, long seed) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("Poisson arrivals need a positive, finite rate, was " + perSecond);
        }
        return new Arrivals() {
            private final SplittableRandom gaps = new SplittableRandom(seed);
            /** The arrival times drawn so far, in nanoseconds from the start, ascending; the first at 0. */
            private long[] times = {0L};
            private int drawn = 1;

            @Override
            public long dueBy(long elapsedNanos) {
                drawPast(elapsedNanos);
                int found = Arrays.binarySearch(times, 0, drawn, elapsedNanos);
                return found >= 0 ? found + 1 : -found - 1;
            }

            @Override
            public long within(Duration window) {
                // Times are whole nanoseconds: those before the window's end are those due by one nanosecond earlier.
                return dueBy(window.toNanos() - 1);
            }

            @Override
            public double perSecond() {
                return perSecond;
            }

            private void drawPast(long nanos) {
                while (times[drawn - 1] <= nanos) {
                    if (drawn == times.length) {
                        times = Arrays.copyOf(times, 2 * drawn);
                    }
                    double gap = -Math.log(1.0 - gaps.nextDouble()) * 1e9 / perSecond;
                    times[drawn] = times[drawn - 1] + Math.max(1L, (long) gap);
                    drawn++;
                }
            }
        };
    }
}
