package dev.dbbulkhead.benchmarks.load;

import java.util.Arrays;

/**
 * Nearest-rank percentiles of a set of latencies, in milliseconds.
 *
 * @param count how many latencies
 * @param p50   median; NaN when there are none
 * @param p99   99th percentile; NaN when there are none
 * @param max   the largest; NaN when there are none
 */
public record LatencySummary(int count, double p50, double p99, double max) {

    /** Summarises latencies given in nanoseconds (the array is sorted in place). */
    public static LatencySummary ofNanos(long[] nanos) {
        if (nanos.length == 0) {
            return new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN);
        }
        Arrays.sort(nanos);
        return new LatencySummary(nanos.length, millis(percentile(nanos, 50)), millis(percentile(nanos, 99)),
                millis(nanos[nanos.length - 1]));
    }

    /** The nearest-rank percentile of sorted values. */
    public static long percentile(long[] sorted, double percent) {
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }
}
