package dev.dbbulkhead.gate;

import java.util.Random;

/** How long simulated operations hold their place: fixed, or drawn around a mean. */
record OperationTimes(Shape shape, long meanNanos) {

    enum Shape { FIXED, UNIFORM, EXPONENTIAL }

    /** One operation's time, drawn from {@code random} (untouched when fixed). */
    long draw(Random random) {
        return switch (shape) {
            case FIXED -> meanNanos;
            // Half to one and a half times the mean, as the benchmarks' pg_sleep is drawn.
            case UNIFORM -> (long) (meanNanos * (0.5 + random.nextDouble()));
            case EXPONENTIAL -> Math.max(1L, (long) (-Math.log(1.0 - random.nextDouble()) * meanNanos));
        };
    }
}
