package dev.dbbulkhead.benchmarks.shares;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.util.ListStatistics;

/**
 * The gate-cost benchmarks of a workload without rules ({@code contender=DB_BULKHEAD}), of this build and of the
 * jar of the build before the rules, in one session: rounds of one JMH fork per build and benchmark, the two builds
 * alternating, so that both meet the machine as it is at the time. Each build's iterations of every round are
 * pooled into one mean and its 99.9 % error, as JMH pools its forks.
 */
final class FastPathComparison {

    /** The benchmarks compared: name, then JMH's arguments besides the timing. */
    static final Map<String, List<String>> CASES = cases();

    private FastPathComparison() {
    }

    /** How long: rounds, and per fork warm-up and measurement iterations of {@code iterationTime}. */
    record Effort(int rounds, int warmups, int measurements, String iterationTime) {

        static final Effort FULL = new Effort(3, 3, 5, "1s");
        static final Effort QUICK = new Effort(1, 1, 2, "200ms");

        List<String> arguments() {
            return List.of("-f", "1", "-wi", String.valueOf(warmups), "-w", iterationTime, "-i",
                    String.valueOf(measurements), "-r", iterationTime);
        }
    }

    /** A mean in ns/op with its 99.9 % error over {@code iterations} iterations. */
    record Score(double mean, double error, int iterations) {

        static Score of(List<Double> values) {
            ListStatistics statistics = new ListStatistics();
            values.forEach(statistics::addValue);
            return new Score(statistics.getMean(), statistics.getMeanErrorAt(0.999), values.size());
        }
    }

    /** One benchmark's scores, this build's and the earlier one's. */
    record Row(String benchmark, Score after, Score before) {

        /** After over before, of means. */
        double ratio() {
            return after.mean() / before.mean();
        }
    }

    /** One row per benchmark, measured with {@code effort}. */
    record Result(Effort effort, List<Row> rows) {
    }

    static Result run(Path beforeJar, Effort effort) throws IOException, InterruptedException {
        String after = System.getProperty("java.class.path");
        Map<String, List<Double>> afterValues = new LinkedHashMap<>();
        Map<String, List<Double>> beforeValues = new LinkedHashMap<>();
        for (int round = 0; round < effort.rounds(); round++) {
            for (Map.Entry<String, List<String>> benchmark : CASES.entrySet()) {
                List<String> arguments = new ArrayList<>(benchmark.getValue());
                arguments.addAll(effort.arguments());
                // Alternate which build goes first, so that neither always follows the other.
                boolean afterFirst = round % 2 == 0;
                for (boolean isAfter : afterFirst ? List.of(true, false) : List.of(false, true)) {
                    double[] values = JmhChild.iterations(isAfter ? after : beforeJar.toString(), arguments);
                    List<Double> into = (isAfter ? afterValues : beforeValues)
                            .computeIfAbsent(benchmark.getKey(), name -> new ArrayList<>());
                    for (double value : values) {
                        into.add(value);
                    }
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        for (String benchmark : CASES.keySet()) {
            rows.add(new Row(benchmark, Score.of(afterValues.get(benchmark)), Score.of(beforeValues.get(benchmark))));
        }
        return new Result(effort, rows);
    }

    private static Map<String, List<String>> cases() {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put("admit + release, 1 platform thread",
                List.of("\\.AdmitReleaseBenchmark\\.", "-p", "contender=DB_BULKHEAD", "-t", "1"));
        cases.put("admit + release, 2 platform threads",
                List.of("\\.AdmitReleaseBenchmark\\.", "-p", "contender=DB_BULKHEAD", "-t", "2"));
        cases.put("one refusal, shallow stack",
                List.of("\\.RejectionBenchmark\\.", "-p", "contender=DB_BULKHEAD", "-p", "stackDepth=0"));
        return cases;
    }
}
