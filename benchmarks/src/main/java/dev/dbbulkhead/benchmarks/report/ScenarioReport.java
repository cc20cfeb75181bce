package dev.dbbulkhead.benchmarks.report;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.isolation.IsolationRun;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.overload.GuardRun;
import dev.dbbulkhead.benchmarks.overload.OverloadResult;
import dev.dbbulkhead.benchmarks.overload.TransactionGuard;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Tables and charts of the PostgreSQL scenarios, written into the output folder. */
public final class ScenarioReport {

    private static final double MIB = 1024.0 * 1024.0;

    private ScenarioReport() {
    }

    /** Writes overload.md and the overload charts. */
    public static void writeOverload(OverloadResult result, Path out) throws IOException {
        double cost = result.unloadedCost().p50();
        double q = result.budget().maxQueued();
        double b = result.budget().maxConcurrent();
        double successP99Target = cost * (1 + q / b) + 5;
        StringBuilder text = new StringBuilder();
        text.append("P = ").append(result.poolSize()).append(" connections; transaction = pg_sleep(")
                .append(result.transactionSleep().toMillis()).append(" ms) + one-row UPDATE; unloaded cost p50 ")
                .append(number(cost, 2)).append(" ms, p99 ").append(number(result.unloadedCost().p99(), 2))
                .append(" ms (").append(result.unloadedCost().count()).append(" transactions one at a time).\n")
                .append("Capacity (the physical floor of time per commit, turned into a ceiling of commits/s): P / cost = ")
                .append(number(result.capacityPerSecond(), 0)).append(" commits/s. Closed loop (P callers back to")
                .append(" back, no flood, no guard): ").append(number(result.closedLoopPerSecond(), 0))
                .append(" commits/s = ").append(percent(result.closedLoopPerSecond() / result.capacityPerSecond()))
                .append(" of capacity. Offered: ")
                .append(number(result.offeredPerSecond(), 0)).append(" calls/s for ")
                .append(result.window().toMillis()).append(" ms per guard, each call on a new virtual thread.\n")
                .append("Budget: B = ").append(result.budget().maxConcurrent()).append(", Q = ")
                .append(result.budget().maxQueued()).append(", queue wait = ")
                .append(result.budget().queueWait().toMillis()).append(" ms. SLO = queue wait + cost = ")
                .append(result.slo().toMillis()).append(" ms. Target success p99 = cost × (1 + Q/B) + 5 ms = ")
                .append(number(successP99Target, 1)).append(" ms.\n\n");
        MarkdownTable table = new MarkdownTable("guard", "offered", "commits/s", "of capacity",
                "commits/s within SLO", "of capacity", "success p50 / p99 / max ms", "refusal p50 / p99 ms",
                "rejected", "pool timeouts", "abandoned", "failed", "most parked", "connections busy (mean)",
                "peak heap MiB", "load avg");
        for (GuardRun run : result.runs()) {
            table.row(run.guard().label(), run.offered(), number(run.committedPerSecond(), 0),
                    percent(run.committedPerSecond() / result.capacityPerSecond()),
                    number(run.committedWithinSloPerSecond(), 0),
                    percent(run.committedWithinSloPerSecond() / result.capacityPerSecond()),
                    triple(run.successes()), number(run.refusals().p50(), 2) + " / " + number(run.refusals().p99(), 2),
                    run.count(Outcome.REJECTED), run.count(Outcome.POOL_TIMEOUT), run.count(Outcome.ABANDONED),
                    run.count(Outcome.FAILED), run.parkedPeak(), number(run.meanExecuting(), 1),
                    number(run.heapPeakBytes() / MIB, 0),
                    number(run.loadAverage(), 2));
        }
        text.append(table);
        for (GuardRun run : result.runs()) {
            if (run.firstFailure() != null) {
                text.append("\nFirst unexpected failure under ").append(run.guard().label()).append(": `")
                        .append(run.firstFailure()).append('`').append(causeOf(run.firstFailure())).append('\n');
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("overload.md"), text);

        List<Charts.Series> latency = new ArrayList<>();
        List<Charts.Series> parked = new ArrayList<>();
        List<String> guards = new ArrayList<>();
        double[] committed = new double[result.runs().size()];
        double[] withinSlo = new double[result.runs().size()];
        for (int i = 0; i < result.runs().size(); i++) {
            GuardRun run = result.runs().get(i);
            latency.add(new Charts.Series(run.guard().label(), run.successP99OverTime()));
            parked.add(new Charts.Series(run.guard().label(), run.parkedOverTime()));
            guards.add(run.guard().shortLabel());
            committed[i] = run.committedPerSecond();
            withinSlo[i] = run.committedWithinSloPerSecond();
        }
        Charts.lineChart(out.resolve("overload-latency.png"),
                "Success latency p99 under 10x overload (per 250 ms of arrivals)", "seconds since load began",
                "p99 latency of commits (ms, log)", true, latency, List.of(
                        new Charts.Reference("floor: cost " + number(cost, 1) + " ms", cost),
                        new Charts.Reference("target p99 " + number(successP99Target, 1) + " ms", successP99Target),
                        new Charts.Reference("SLO " + result.slo().toMillis() + " ms", result.slo().toMillis())));
        Charts.barChart(out.resolve("overload-goodput.png"), "Goodput under 10x overload, per guard",
                "commits per second", false, guards, List.of(
                        new Charts.Bars("all commits", committed),
                        new Charts.Bars("commits within SLO " + result.slo().toMillis() + " ms", withinSlo)),
                List.of(new Charts.Reference("capacity P/cost " + number(result.capacityPerSecond(), 0) + "/s",
                                result.capacityPerSecond()),
                        new Charts.Reference("closed loop " + number(result.closedLoopPerSecond(), 0) + "/s",
                                result.closedLoopPerSecond())));
        Charts.lineChart(out.resolve("overload-parked.png"), "Callers parked (in flight, not executing)",
                "seconds since load began", "callers parked (log)", true, parked, List.of(
                        new Charts.Reference("B + Q = " + (int) (b + q), b + q)));
    }

    /** Writes isolation.md and the isolation chart. */
    public static void writeIsolation(List<IsolationRun> runs, Path out, String setup) throws IOException {
        StringBuilder text = new StringBuilder(setup).append("\n\n");
        MarkdownTable table = new MarkdownTable("guard", "reports flood", "orders offered", "orders committed",
                "orders p50 / p99 / max ms", "orders refused or timed out", "reports offered", "reports committed",
                "reports refused or timed out", "load avg");
        for (IsolationRun run : runs) {
            table.row(run.guard().label(), run.flooded() ? "yes" : "no", run.ordersOffered(),
                    run.orders().get(Outcome.COMMITTED), triple(run.ordersLatency()), Outcome.refused(run.orders()),
                    run.reportsOffered(), run.reports().getOrDefault(Outcome.COMMITTED, 0), Outcome.refused(run.reports()),
                    number(run.loadAverage(), 2));
        }
        text.append(table);
        Files.createDirectories(out);
        Files.writeString(out.resolve("isolation.md"), text);

        List<String> guards = new ArrayList<>();
        List<Double> quiet = new ArrayList<>();
        List<Double> flooded = new ArrayList<>();
        for (IsolationRun run : runs) {
            if (!guards.contains(run.guard().label())) {
                guards.add(run.guard().label());
            }
            (run.flooded() ? flooded : quiet).add(run.ordersLatency().p99());
        }
        double gatedQuiet = runs.stream().filter(run -> run.guard() == TransactionGuard.DB_BULKHEAD && !run.flooded())
                .mapToDouble(run -> run.ordersLatency().p99()).findFirst().orElse(Double.NaN);
        Charts.barChart(out.resolve("isolation-orders-p99.png"), "orders p99 with and without a reports flood",
                "orders p99 latency (ms, log)", true, guards, List.of(
                        new Charts.Bars("no flood", toArray(quiet)), new Charts.Bars("reports flooding", toArray(flooded))),
                List.of(new Charts.Reference("floor: pg_sleep 2 ms", 2.0),
                        new Charts.Reference("target: 1.1 x unflooded", gatedQuiet * 1.1)));
    }

    private static String causeOf(Throwable failure) {
        return failure.getCause() == null ? "" : ", caused by `" + failure.getCause() + "`";
    }

    /** "p50 / p99 / max" in ms with one decimal. */
    public static String triple(LatencySummary summary) {
        return number(summary.p50(), 1) + " / " + number(summary.p99(), 1) + " / " + number(summary.max(), 1);
    }

    private static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
