package dev.dbbulkhead.benchmarks.report;

import org.openjdk.jmh.results.RunResult;

/** What the reports read from a JMH result besides its mean. */
public final class JmhResults {

    private JmhResults() {
    }

    /** The fastest measurement iteration: on a shared machine, the one least disturbed by other processes. */
    public static double bestIteration(RunResult result) {
        return result.getBenchmarkResults().stream()
                .flatMap(benchmark -> benchmark.getIterationResults().stream())
                .mapToDouble(iteration -> iteration.getPrimaryResult().getScore())
                .min().orElse(Double.NaN);
    }
}
