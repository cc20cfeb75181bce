package dev.dbbulkhead.benchmarks.pathcost;

import static dev.dbbulkhead.benchmarks.report.JmhResults.bestIteration;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Scenario 6: runs {@link UserPathBenchmark} and writes its table, with the two targets marked. */
public final class PathCostRun {

    /** What {@code @DbBulkhead} may add to {@code @Transactional} alone: 5 %. */
    static final double MAX_OVERHEAD = 0.05;

    private PathCostRun() {
    }

    /** How long JMH measures. */
    public enum Effort {
        /**
         * 2 forks, each 5 × 1 s warm-up and 5 × 2 s measurement: about 20 s per fork with the JVM, PostgreSQL and
         * application start-up, so the six benchmarks take about 4 minutes. The warm-up covers HikariCP opening its
         * connections and the JIT compiling the proxies (a call costs about 100 µs, so 1 s is thousands of calls);
         * two forks because one JVM's JIT decisions can sit apart from another's.
         */
        FULL(new Iterations(2, 5, TimeValue.seconds(1), 5, TimeValue.seconds(2))),
        /** 1 fork, 1 × 0.5 s warm-up, 2 × 0.5 s measurement: numbers are indicative only. */
        QUICK(new Iterations(1, 1, TimeValue.milliseconds(500), 2, TimeValue.milliseconds(500)));

        final Iterations iterations;

        Effort(Iterations iterations) {
            this.iterations = iterations;
        }
    }

    /** JMH's forks and iterations of one effort. */
    record Iterations(int forks, int warmups, TimeValue warmupTime, int measurements, TimeValue measurementTime) {

        @Override
        public String toString() {
            return forks + (forks == 1 ? " fork, " : " forks, each ") + warmups + " × " + warmupTime + " warm-up, "
                    + measurements + " × " + measurementTime + " measurement";
        }
    }

    /** Runs the user-path benchmarks and writes path-cost.md into {@code out}. */
    public static void run(Effort effort, Path out) throws RunnerException, IOException {
        double loadBefore = RunConditions.loadAverage();
        Instant began = Instant.now();
        Iterations iterations = effort.iterations;
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include("\\." + UserPathBenchmark.class.getSimpleName() + "\\.")
                .forks(iterations.forks())
                .warmupIterations(iterations.warmups())
                .warmupTime(iterations.warmupTime())
                .measurementIterations(iterations.measurements())
                .measurementTime(iterations.measurementTime())
                .build()).run();
        String text = "JMH " + effort + ": " + iterations + "; from " + began + " to " + Instant.now()
                + "; load average " + number(loadBefore, 2) + " before, " + number(RunConditions.loadAverage(), 2)
                + " after.\n\n" + report(byCallers(results));
        Files.createDirectories(out);
        Files.writeString(out.resolve("path-cost.md"), text);
    }

    /** The results by number of callers (the benchmark method) and path. */
    static Map<String, Map<UserPath, RunResult>> byCallers(Collection<RunResult> results) {
        Map<String, Map<UserPath, RunResult>> byCallers = new LinkedHashMap<>();
        for (String method : new String[] {"oneCaller", "eightCallers"}) {
            Map<UserPath, RunResult> byPath = new EnumMap<>(UserPath.class);
            for (RunResult result : results) {
                if (result.getParams().getBenchmark().endsWith("." + method)) {
                    byPath.put(UserPath.valueOf(result.getParams().getParam("path")), result);
                }
            }
            byCallers.put(method.equals("oneCaller") ? "1 caller" : "8 callers", byPath);
        }
        return byCallers;
    }

    private static String report(Map<String, Map<UserPath, RunResult>> byCallers) {
        MarkdownTable table = new MarkdownTable("path", "1 caller µs/call", "× `@Transactional`", "8 callers µs/call",
                "× `@Transactional`");
        for (UserPath path : UserPath.values()) {
            Object[] cells = new Object[5];
            cells[0] = path.label();
            int column = 1;
            for (Map<UserPath, RunResult> byPath : byCallers.values()) {
                RunResult result = byPath.get(path);
                RunResult floor = byPath.get(UserPath.TRANSACTIONAL);
                cells[column++] = result == null ? "–" : number(mean(result), 1) + " ± "
                        + number(result.getPrimaryResult().getScoreError(), 1) + " (" + number(bestIteration(result), 1)
                        + ")";
                cells[column++] = result == null || floor == null ? "–" : number(mean(result) / mean(floor), 3)
                        + " (" + number(bestIteration(result) / bestIteration(floor), 3) + ")";
            }
            table.row(cells);
        }
        MarkdownTable targets = new MarkdownTable("target", "callers", "measured", "verdict");
        byCallers.forEach((callers, byPath) -> {
            double plain = mean(byPath.get(UserPath.TRANSACTIONAL));
            double gated = mean(byPath.get(UserPath.DB_BULKHEAD));
            double resilience4j = mean(byPath.get(UserPath.RESILIENCE4J));
            targets.row("`@DbBulkhead` adds ≤ " + percent(MAX_OVERHEAD) + " over `@Transactional` alone", callers,
                    signedPercent(gated / plain - 1), verdict(meetsOverheadTarget(gated, plain)));
            targets.row("`@DbBulkhead` costs no more than Resilience4j `@Bulkhead`", callers,
                    number(gated, 1) + " against " + number(resilience4j, 1) + " µs",
                    verdict(meetsPeerTarget(gated, resilience4j)));
        });
        return "Mean time per call per caller in µs ± 99.9 % error (in brackets: the fastest iteration of any fork);"
                + " × = ratio to `@Transactional` alone in the same column, of means (of fastest iterations).\n\n"
                + table + "\nTargets, on the means:\n\n" + targets;
    }

    /** True when the gated path's mean costs at most {@link #MAX_OVERHEAD} more than the plain transaction's. */
    static boolean meetsOverheadTarget(double gatedMicros, double plainMicros) {
        return gatedMicros <= plainMicros * (1 + MAX_OVERHEAD);
    }

    /** True when the gated path's mean costs no more than the Resilience4j pairing's. */
    static boolean meetsPeerTarget(double gatedMicros, double resilience4jMicros) {
        return gatedMicros <= resilience4jMicros;
    }

    private static String verdict(boolean met) {
        return met ? "met" : "**not met**";
    }

    private static String signedPercent(double share) {
        return (share >= 0 ? "+" : "") + percent(share);
    }

    private static double mean(RunResult result) {
        return result == null ? Double.NaN : result.getPrimaryResult().getScore();
    }
}
