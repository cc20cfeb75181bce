package dev.dbbulkhead.benchmarks.adaptive;

import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.DoublePredicate;
import java.util.stream.DoubleStream;

/**
 * One contender's run: every call, and the limit in force sampled over time (seconds after the run began, limit).
 *
 * @param label   the contender
 * @param log     every call
 * @param limits  (second, limit) samples
 */
public record LimitRun(String label, CallLog log, List<double[]> limits) {

    /** How the calls that started in [from, to) seconds ended. */
    Phase phase(double fromSeconds, double toSeconds) {
        long from = (long) (fromSeconds * 1e9);
        long to = (long) (toSeconds * 1e9);
        double seconds = toSeconds - fromSeconds;
        return new Phase(log.committedEndingBetween(from, to, -1) / seconds,
                log.latenciesStartedBetween(from, to, Outcome.REJECTED).length / seconds,
                LatencySummary.ofNanos(log.latenciesStartedBetween(from, to, Outcome.COMMITTED)),
                meanLimit(fromSeconds, toSeconds), medianLimit(fromSeconds, toSeconds));
    }

    /**
     * Seconds from {@code fromSeconds} to the first sample from which the median limit over the next
     * {@code spanSeconds} passes {@code test}: one noisy sample decides nothing. NaN when none does.
     */
    double firstSecondWhereMedian(double fromSeconds, double spanSeconds, DoublePredicate test) {
        for (double[] sample : limits) {
            if (sample[0] >= fromSeconds && test.test(medianLimit(sample[0], sample[0] + spanSeconds))) {
                return sample[0] - fromSeconds;
            }
        }
        return Double.NaN;
    }

    /** The p99 of successes per slice of {@code sliceSeconds}, by the slice's middle second. */
    List<double[]> p99OverTime(double sliceSeconds, double untilSeconds) {
        List<double[]> points = new ArrayList<>();
        for (double from = 0; from < untilSeconds; from += sliceSeconds) {
            long[] slice = log.latenciesStartedBetween((long) (from * 1e9), (long) ((from + sliceSeconds) * 1e9),
                    Outcome.COMMITTED);
            if (slice.length > 0) {
                points.add(new double[] {from + sliceSeconds / 2, LatencySummary.ofNanos(slice).p99()});
            }
        }
        return points;
    }

    /** Every call counted once by outcome. */
    public Map<Outcome, Integer> counts() {
        return log.counts();
    }

    private double meanLimit(double fromSeconds, double toSeconds) {
        return limitsBetween(fromSeconds, toSeconds).average().orElse(Double.NaN);
    }

    private double medianLimit(double fromSeconds, double toSeconds) {
        double[] sorted = limitsBetween(fromSeconds, toSeconds).sorted().toArray();
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }

    private DoubleStream limitsBetween(double fromSeconds, double toSeconds) {
        return limits.stream().filter(sample -> sample[0] >= fromSeconds && sample[0] < toSeconds)
                .mapToDouble(sample -> sample[1]);
    }

    /**
     * What one phase of a run measured.
     *
     * @param goodput      commits per second (transactions that ended in the phase)
     * @param rejected     refusals per second (calls that started in the phase)
     * @param successes    latency of the committed calls that started in the phase
     * @param meanLimit    the limit's mean over the phase's samples
     * @param medianLimit  the limit's median over the phase's samples
     */
    record Phase(double goodput, double rejected, LatencySummary successes, double meanLimit, double medianLimit) {
    }
}
