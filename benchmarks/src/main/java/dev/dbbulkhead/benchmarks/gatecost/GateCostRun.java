package dev.dbbulkhead.benchmarks.gatecost;

import static dev.dbbulkhead.benchmarks.report.JmhResults.bestIteration;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.report.Charts;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Scenario 1: runs the JMH gate-cost benchmarks and writes their table and chart. */
public final class GateCostRun {

    private static final int[] PLATFORM_THREADS = {1, 2, 8};

    private GateCostRun() {
    }

    /** How long JMH measures: the report's settings, or a quick look. */
    public enum Effort {
        /**
         * 3 forks, each 3 × 1 s warm-up and 5 × 1 s measurement per benchmark. Three forks because one fork's
         * contended figure can sit far from the others' (JIT decisions and thread placement differ per JVM).
         */
        FULL(3, 3, 5, TimeValue.seconds(1)),
        /** 1 fork, 1 × 0.2 s warm-up, 2 × 0.2 s measurement: numbers are indicative only. */
        QUICK(1, 1, 2, TimeValue.milliseconds(200));

        final int forks;
        final int warmups;
        final int measurements;
        final TimeValue time;

        Effort(int forks, int warmups, int measurements, TimeValue time) {
            this.forks = forks;
            this.warmups = warmups;
            this.measurements = measurements;
            this.time = time;
        }
    }

    /** Runs all gate-cost benchmarks and writes gate-cost.md, gate-cost.png and rejection-cost.png. */
    public static void run(Effort effort, Path out) throws RunnerException, IOException {
        double loadBefore = RunConditions.loadAverage();
        Map<String, Map<Contender, RunResult>> admitRelease = new LinkedHashMap<>();
        for (int threads : PLATFORM_THREADS) {
            admitRelease.put(threads + (threads == 1 ? " platform thread" : " platform threads"),
                    byContender(new Runner(options(effort, AdmitReleaseBenchmark.class).threads(threads).build())
                            .run(), null));
        }
        Collection<RunResult> virtual = new Runner(options(effort, VirtualThreadAdmitReleaseBenchmark.class).build())
                .run();
        for (String count : List.of("2", "8")) {
            admitRelease.put(count + " virtual threads", byContender(virtual, Map.entry("virtualThreads", count)));
        }
        Collection<RunResult> rejections = new Runner(options(effort, RejectionBenchmark.class).build()).run();
        Map<String, Map<Contender, RunResult>> refusal = new LinkedHashMap<>();
        refusal.put("shallow stack", byContender(rejections, Map.entry("stackDepth", "0")));
        refusal.put("150 frames deeper", byContender(rejections, Map.entry("stackDepth", "150")));
        double loadAfter = RunConditions.loadAverage();

        StringBuilder text = new StringBuilder()
                .append("JMH ").append(effort).append(": ").append(effort.forks)
                .append(effort.forks == 1 ? " fork, " : " forks, each ").append(effort.warmups).append(" × ")
                .append(effort.time).append(" warm-up, ").append(effort.measurements).append(" × ")
                .append(effort.time).append(" measurement; mean time per operation in ns ± 99.9 % error, ")
                .append("(in brackets: the fastest iteration of any fork, the one least disturbed by other processes); × = ratio to ")
                .append("the bare Semaphore floor in the same column, of means (of fastest iterations). Load average ")
                .append(number(loadBefore, 2)).append(" before, ").append(number(loadAfter, 2)).append(" after.\n\n")
                .append("### Admit + release of an empty operation\n\n")
                .append(table(admitRelease)).append("\n### One refusal (the only permit is held by another thread)\n\n")
                .append("The floor here is a failed `tryAcquire()`: no exception at all.\n\n")
                .append(table(refusal));
        Files.createDirectories(out);
        Files.writeString(out.resolve("gate-cost.md"), text);
        chart(admitRelease, out.resolve("gate-cost.png"), "Admit + release, ns per operation, fastest iteration");
        chart(refusal, out.resolve("rejection-cost.png"), "One refusal, ns per operation, fastest iteration");
    }

    private static ChainedOptionsBuilder options(Effort effort, Class<?> benchmark) {
        return new OptionsBuilder()
                .include("\\." + benchmark.getSimpleName() + "\\.")
                .forks(effort.forks)
                .warmupIterations(effort.warmups)
                .warmupTime(effort.time)
                .measurementIterations(effort.measurements)
                .measurementTime(effort.time)
                .jvmArgsAppend("-Djava.awt.headless=true");
    }

    private static Map<Contender, RunResult> byContender(Collection<RunResult> results, Map.Entry<String, String> only) {
        Map<Contender, RunResult> byContender = new LinkedHashMap<>();
        for (RunResult result : results) {
            if (only == null || only.getValue().equals(result.getParams().getParam(only.getKey()))) {
                byContender.put(Contender.valueOf(result.getParams().getParam("contender")), result);
            }
        }
        return byContender;
    }

    private static String table(Map<String, Map<Contender, RunResult>> columns) {
        List<String> header = new ArrayList<>(List.of("contender"));
        columns.keySet().forEach(column -> {
            header.add(column + " ns/op");
            header.add("×");
        });
        MarkdownTable table = new MarkdownTable(header.toArray(String[]::new));
        for (Contender contender : Contender.values()) {
            if (columns.values().stream().noneMatch(column -> column.containsKey(contender))) {
                continue;
            }
            List<Object> cells = new ArrayList<>(List.of("`" + contender + "`"));
            for (Map<Contender, RunResult> column : columns.values()) {
                RunResult result = column.get(contender);
                RunResult floor = column.get(Contender.SEMAPHORE);
                if (result == null) {
                    cells.add("–");
                    cells.add("–");
                    continue;
                }
                double score = result.getPrimaryResult().getScore();
                cells.add(number(score, 1) + " ± " + number(result.getPrimaryResult().getScoreError(), 1)
                        + " (" + number(bestIteration(result), 1) + ")");
                cells.add(floor == null ? "–" : number(score / floor.getPrimaryResult().getScore(), 2)
                        + " (" + number(bestIteration(result) / bestIteration(floor), 2) + ")");
            }
            table.row(cells.toArray());
        }
        return table.toString();
    }

    private static void chart(Map<String, Map<Contender, RunResult>> columns, Path file, String title)
            throws IOException {
        List<Contender> contenders = new ArrayList<>();
        for (Contender contender : Contender.values()) {
            if (columns.values().stream().anyMatch(column -> column.containsKey(contender))) {
                contenders.add(contender);
            }
        }
        List<Charts.Bars> bars = new ArrayList<>();
        for (Map.Entry<String, Map<Contender, RunResult>> column : columns.entrySet()) {
            double[] values = new double[contenders.size()];
            for (int i = 0; i < values.length; i++) {
                RunResult result = column.getValue().get(contenders.get(i));
                values[i] = result == null ? Double.NaN : bestIteration(result);
            }
            bars.add(new Charts.Bars(column.getKey(), values));
        }
        List<String> names = contenders.stream().map(GateCostRun::chartName).toList();
        Charts.barChart(file, title, "ns per operation (log); SEMAPHORE is the floor", true, names, bars, List.of());
    }

    private static String chartName(Contender contender) {
        return switch (contender) {
            case SEMAPHORE -> "Semaphore";
            case NAIVE_TWO_SEMAPHORES -> "2 semaphores";
            case DB_BULKHEAD -> "db-bulkhead";
            case DB_BULKHEAD_STACK_TRACE -> "db-bh+stack";
            case RESILIENCE4J -> "R4j";
            case RESILIENCE4J_STACKLESS -> "R4j no stack";
            case SPRING_THROTTLE_INTERCEPTOR -> "Spring intc.";
            case SPRING_CONCURRENCY_LIMIT -> "@ConcLimit";
        };
    }
}
