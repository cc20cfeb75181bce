package dev.dbbulkhead.benchmarks.lending;

import static dev.dbbulkhead.benchmarks.lending.LendingScenario.ORDERS_B;
import static dev.dbbulkhead.benchmarks.lending.LendingScenario.REPORTS_B;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.benchmarks.report.ScenarioReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The lending scenario's report, lending.md: the setup, a row per run, each target marked met or not, the machine. */
public final class LendingReport {

    static final String FILE = "lending.md";
    static final String MET = "**met**";
    static final String NOT_MET = "**not met**";

    private LendingReport() {
    }

    /** Writes {@value #FILE} into {@code out}; {@code environment} is the harness's description of the machine. */
    public static void write(LendingScenario.Result result, String environment, Path out) throws IOException {
        StringBuilder text = new StringBuilder(setup(result.timing())).append("\n\n");
        MarkdownTable runs = new MarkdownTable("run", "A: reports commits/s", "B: reports commits/s",
                "B: orders committed / refused", "orders p50 / p99 / max ms from return",
                "… first second", "… from 1 s after", "reports refused (by reason)", "busy sessions peak (server)",
                "inside work peak (callers)", "samples", "abandoned / failed", "load avg");
        for (LendingRun run : List.of(result.without(), result.with())) {
            Map<Outcome, Integer> orders = run.ordersCounts();
            Map<Outcome, Integer> reports = run.reportsCounts();
            runs.row(run.label(), number(run.reportsGoodputAlone(), 1), number(run.reportsGoodputBeside(), 1),
                    orders.get(Outcome.COMMITTED) + " / " + Outcome.refused(orders),
                    ScenarioReport.triple(run.ordersFromReturn()), ScenarioReport.triple(run.ordersFirstSecond()),
                    ScenarioReport.triple(run.ordersAfterSettling()),
                    Outcome.refused(reports) + " " + run.reports().refusalsByReason(), run.serverPeak(),
                    run.insidePeak(), run.samples(),
                    (orders.get(Outcome.ABANDONED) + reports.get(Outcome.ABANDONED)) + " / "
                            + (orders.get(Outcome.FAILED) + reports.get(Outcome.FAILED)),
                    number(run.loadAverage(), 2));
        }
        text.append(runs).append('\n').append(targets(result)).append('\n');
        for (LendingRun run : List.of(result.without(), result.with())) {
            Throwable failure = run.orders().firstFailure() != null ? run.orders().firstFailure()
                    : run.reports().firstFailure();
            if (failure != null) {
                text.append("First unexpected failure ").append(run.label()).append(": `").append(failure)
                        .append("`\n\n");
            }
        }
        text.append("The machine's CPUs were not reserved for the benchmark: the load averages include whatever else"
                        + " ran beside it. Each target compares the two runs of this one process, made one after the"
                        + " other on the same database.\n\nRun from ").append(result.began()).append(" to ")
                .append(result.ended()).append(".\n\n").append(environment);
        Files.createDirectories(out);
        Files.writeString(out.resolve(FILE), text);
    }

    private static String setup(LendingScenario.Timing timing) {
        return "Two workloads on one HikariCP pool of " + (ORDERS_B + REPORTS_B + LendingScenario.POOL_HEADROOM)
                + " connections (Σ B = " + (ORDERS_B + REPORTS_B) + ", plus " + LendingScenario.POOL_HEADROOM
                + " so that the pool does not bound what the gates let through): `orders`, B = " + ORDERS_B + ", Q = "
                + LendingScenario.ORDERS_BUDGET.maxQueued() + ", queue wait "
                + LendingScenario.ORDERS_BUDGET.queueWait().toMillis() + " ms, lends its unused places; `reports`, B = "
                + REPORTS_B + ", Q = 0, may borrow up to " + LendingScenario.REPORTS_BORROW + " places. Each operation"
                + " is one transaction through `JdbcBulkhead`: pg_sleep(" + LendingScenario.HOLD.toMillis()
                + " ms) + a one-row UPDATE. Phase A (" + timing.phaseA().toMillis() + " ms): only `reports` offers load,"
                + " " + number(LendingScenario.reportsPerSecond(), 0) + " calls/s steadily, open loop ("
                + number(LendingScenario.REPORTS_OVERLOAD, 0) + " × what its own B serves of the sleep alone). Phase B ("
                + timing.phaseB().toMillis() + " ms): `orders` returns with " + number(LendingScenario.ordersPerSecond(), 0)
                + " calls/s (" + number(100 * LendingScenario.ORDERS_SHARE, 0) + " % of what its B serves) while"
                + " `reports` keeps its load. Calls still inside at the end are followed for up to "
                + timing.drain().toMillis() + " ms. Two runs, one after the other, after a " + timing.warmUp().toMillis()
                + " ms warm-up (not reported): without lending (both gates `GateLending.none()`, as"
                + " `lending.borrow: 0` configures them), then with it. Latencies are of committed calls, by when they"
                + " started. A sampler thread counts, every " + SessionSampler.PERIOD.toMillis() + " ms on a connection"
                + " of its own, the pool's sessions `pg_stat_activity` shows `active` or `idle in transaction`"
                + " (its application_name and user); the callers count, exactly, the operations inside their"
                + " transaction's work."
                + " The pool's connections are opened, and the transaction HikariCP leaves open on each (its SET of the"
                + " schema) committed, before the runs.";
    }

    private static MarkdownTable targets(LendingScenario.Result result) {
        LendingRun without = result.without();
        LendingRun with = result.with();
        MarkdownTable targets = new MarkdownTable("target", "measured", "met?");
        double goodput = with.reportsGoodputAlone() / without.reportsGoodputAlone();
        targets.row("owner idle: the borrower's goodput with lending ≥ " + LendingScenario.GOODPUT_TARGET
                        + " × without", number(goodput, 2) + " × (" + number(with.reportsGoodputAlone(), 1) + " vs "
                        + number(without.reportsGoodputAlone(), 1) + " commits/s)",
                verdict(goodput >= LendingScenario.GOODPUT_TARGET));
        double settled = ratio(with.ordersAfterSettling(), without.ordersAfterSettling());
        targets.row("owner back: its p99 from 1 s after its return, with lending ≤ " + LendingScenario.P99_TARGET
                        + " × without", number(settled, 2) + " × (" + p99(with.ordersAfterSettling()) + " vs "
                        + p99(without.ordersAfterSettling()) + " ms)",
                verdict(settled <= LendingScenario.P99_TARGET));
        double first = ratio(with.ordersFirstSecond(), without.ordersFirstSecond());
        targets.row("owner back: its p99 in its first second (no target)", number(first, 2) + " × ("
                + p99(with.ordersFirstSecond()) + " vs " + p99(without.ordersFirstSecond()) + " ms)", "–");
        double whole = ratio(with.ordersFromReturn(), without.ordersFromReturn());
        targets.row("owner back: its p99 from its return (no target)", number(whole, 2) + " × ("
                + p99(with.ordersFromReturn()) + " vs " + p99(without.ordersFromReturn()) + " ms)", "–");
        int sigmaB = ORDERS_B + REPORTS_B;
        int peak = Math.max(with.serverPeak(), without.serverPeak());
        targets.row("the pool's busy sessions on the server never above Σ B = " + sigmaB, "peak " + peak + " in "
                        + (with.samples() + without.samples()) + " samples (inside work, counted by the callers: peak "
                        + Math.max(with.insidePeak(), without.insidePeak()) + ")",
                verdict(peak <= sigmaB && with.samples() > 0 && without.samples() > 0));
        return targets;
    }

    private static double ratio(LatencySummary with, LatencySummary without) {
        return with.p99() / without.p99();
    }

    private static String p99(LatencySummary summary) {
        return number(summary.p99(), 1);
    }

    private static String verdict(boolean met) {
        return met ? MET : NOT_MET;
    }
}
