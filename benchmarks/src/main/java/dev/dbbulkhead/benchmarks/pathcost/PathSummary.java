package dev.dbbulkhead.benchmarks.pathcost;

import java.util.List;
import java.util.function.ToDoubleFunction;
import org.openjdk.jmh.util.ListStatistics;

/**
 * One row of the report: a path from one build with one caller configuration, over all iterations of all its
 * forks. The means are means of the iterations' figures, each iteration weighing the same, as JMH's do.
 *
 * @param microsPerCall           mean time per call per caller
 * @param microsPerCallError      half-width of the 99.9 % confidence interval of that mean, as JMH computes it
 *                                (NaN for a single iteration)
 * @param serverCpuMicrosPerCall  NaN where any iteration could not read the server's CPU
 * @param compilingShare          the mean share of an iteration's wall time the JIT compilers spent compiling; NaN
 *                                where any iteration did not report it
 * @param longestCallMillis       the longest call of any iteration; NaN where any iteration did not report it
 * @param mostIdleCallers         the most callers of one iteration none of whose calls returned in it, the mean's blind
 *                                spot; {@link IterationResult#NOT_STALLS_MEASURED} where any iteration did not report it
 */
record PathSummary(int iterations, double microsPerCall, double microsPerCallError, double callsPerSecond,
                   double bytesPerCall, double processCpuMicrosPerCall, double serverCpuMicrosPerCall, long errors,
                   double compilingShare, double longestCallMillis, int mostIdleCallers) {

    /** The confidence level of the error, JMH's. */
    static final double CONFIDENCE = 0.999;

    static PathSummary of(List<IterationResult> results) {
        if (results.isEmpty()) {
            throw new IllegalArgumentException("No iterations to summarize");
        }
        ListStatistics micros = new ListStatistics();
        results.forEach(result -> micros.addValue(result.microsPerCall()));
        return new PathSummary(results.size(), micros.getMean(), micros.getMeanErrorAt(CONFIDENCE),
                mean(results, IterationResult::callsPerSecond), mean(results, IterationResult::bytesPerCall),
                mean(results, IterationResult::processCpuMicrosPerCall),
                mean(results, IterationResult::serverCpuMicrosPerCall),
                results.stream().mapToLong(IterationResult::errors).sum(),
                mean(results, IterationResult::compilingShare),
                // Math.max, and so the stream's max, is NaN where any figure is: "not measured" wherever one was not.
                results.stream().mapToDouble(IterationResult::longestCallMillis).max().orElseThrow(),
                mostIdleCallers(results));
    }

    private static int mostIdleCallers(List<IterationResult> results) {
        boolean anyUnmeasured = results.stream()
                .anyMatch(result -> result.idleCallers() == IterationResult.NOT_STALLS_MEASURED);
        return anyUnmeasured ? IterationResult.NOT_STALLS_MEASURED
                : results.stream().mapToInt(IterationResult::idleCallers).max().orElseThrow();
    }

    private static double mean(List<IterationResult> results, ToDoubleFunction<IterationResult> figure) {
        // A NaN (the server's CPU or the compilers' time not read) makes the mean NaN: "not measured", never a mean
        // of the others.
        return results.stream().mapToDouble(figure).average().orElse(Double.NaN);
    }
}
