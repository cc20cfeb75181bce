package dev.dbbulkhead.benchmarks.queue;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.overload.GuardRun;
import dev.dbbulkhead.benchmarks.overload.OverloadResult;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.benchmarks.report.Charts;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.benchmarks.report.ScenarioReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The queue-discipline scenario's report: per part ({@code queue-sustained}, {@code queue-bursty}) a Markdown file
 * with the setup, a row per guard and the targets marked met or not, and a PNG of goodput, success p99 and refusals
 * per guard.
 */
public final class QueueReport {

    private QueueReport() {
    }

    /** Writes queue-sustained.md/.png and queue-bursty.md/.png into {@code out}. */
    public static void write(QueueScenario.Result result, Path out) throws IOException {
        OverloadResult sustained = result.sustained();
        OverloadResult bursty = result.bursty();
        write(out, "queue-sustained", sustained, "Sustained " + OverloadScenario.OVERLOAD_FACTOR + "x overload",
                setup(sustained) + " Offered: " + number(sustained.offeredPerSecond(), 0)
                        + " calls/s, steadily, for " + sustained.window().toMillis() + " ms per guard; the"
                        + " latencies and commits/s are those of the calls started after the first "
                        + QueueScenario.sustainedOnset(sustained.window()).toMillis() + " ms (the onset, where the"
                        + " CoDel discipline has not yet judged the queue standing), the counts those of all.",
                QueueTargets.sustained(sustained),
                new Charts.Reference("REJECT p99 x " + QueueTargets.P99_OVER_REJECT + " = "
                        + number(QueueTargets.sustainedP99Bound(sustained), 1) + " ms",
                        QueueTargets.sustainedP99Bound(sustained)), List.of());
        write(out, "queue-bursty", bursty, "Bursts at " + percent(QueueScenario.BURSTY_SHARE) + " of the closed loop",
                setup(bursty) + " Offered: bursts of " + result.burstSize() + " callers at once (B + Q/2), one every "
                        + number(result.burstPeriod().toNanos() / 1e6, 1) + " ms, regularly spaced: on average "
                        + number(bursty.offeredPerSecond(), 0) + " calls/s = "
                        + percent(bursty.offeredPerSecond() / bursty.closedLoopPerSecond())
                        + " of the closed loop, for " + bursty.window().toMillis() + " ms per guard.",
                QueueTargets.bursty(bursty),
                new Charts.Reference("queue wait + cost p99 " + number(QueueTargets.burstyP99Bound(bursty), 1)
                        + " ms", QueueTargets.burstyP99Bound(bursty)),
                List.of(new Charts.Reference("target: " + percent(QueueTargets.MAX_REFUSED_SHARE) + " of calls",
                        100 * QueueTargets.MAX_REFUSED_SHARE)));
    }

    private static String setup(OverloadResult result) {
        return "P = " + result.poolSize() + " connections, each guard on a fresh pool; transaction = pg_sleep("
                + result.transactionSleep().toMillis() + " ms) + one-row UPDATE; unloaded cost p50 "
                + number(result.unloadedCost().p50(), 2) + " ms, p99 " + number(result.unloadedCost().p99(), 2)
                + " ms (" + result.unloadedCost().count() + " transactions one at a time). Closed loop (P callers"
                + " back to back, no guard, measured after the sustained part): "
                + number(result.closedLoopPerSecond(), 0) + " commits/s. Budget of both db-bulkhead disciplines:"
                + " B = " + result.budget().maxConcurrent() + ", Q = " + result.budget().maxQueued()
                + ", queue wait = " + result.budget().queueWait().toMillis() + " ms (Resilience4j: "
                + result.budget().maxConcurrent() + " calls, wait " + result.budget().queueWait().toMillis()
                + " ms; @ConcurrencyLimit: limit " + result.budget().maxConcurrent()
                + "); CoDel at its default target delay and interval. SLO = queue wait + cost p50 = "
                + result.slo().toMillis() + " ms.";
    }

    private static void write(Path out, String name, OverloadResult result, String chartTitle, String setup,
                              List<QueueTargets.Target> targets, Charts.Reference p99Target,
                              List<Charts.Reference> refusalTargets) throws IOException {
        StringBuilder text = new StringBuilder(setup).append("\n\n");
        MarkdownTable guards = new MarkdownTable("guard", "calls", "commits/s", "commits/s within SLO",
                "of closed loop", "success p50 / p99 / max ms", "refused", "of calls", "refusals by reason",
                "shed", "failed", "abandoned", "most parked", "load avg");
        for (GuardRun run : result.runs()) {
            guards.row(run.guard().label(), run.offered(), number(run.committedPerSecond(), 0),
                    number(run.committedWithinSloPerSecond(), 0),
                    percent(run.committedWithinSloPerSecond() / result.closedLoopPerSecond()),
                    ScenarioReport.triple(run.successes()), run.refused(), percent(QueueTargets.refusedShare(run)),
                    byReason(run.refusalsByReason()),
                    run.shedCount().isPresent() ? String.valueOf(run.shedCount().getAsLong()) : "–",
                    run.count(Outcome.FAILED), run.count(Outcome.ABANDONED), run.parkedPeak(),
                    number(run.loadAverage(), 2));
        }
        text.append(guards).append('\n');
        MarkdownTable judged = new MarkdownTable("target", "measured", "met?");
        for (QueueTargets.Target target : targets) {
            judged.row(target.target(), target.measured(), target.met() ? "**met**" : "**not met**");
        }
        text.append(judged);
        for (GuardRun run : result.runs()) {
            if (run.firstFailure() != null) {
                text.append("\nFirst unexpected failure under ").append(run.guard().label()).append(": `")
                        .append(run.firstFailure()).append("`\n");
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve(name + ".md"), text);
        chart(out.resolve(name + ".png"), chartTitle, result, p99Target, refusalTargets);
    }

    private static void chart(Path file, String title, OverloadResult result, Charts.Reference p99Target,
                              List<Charts.Reference> refusalTargets) throws IOException {
        List<GuardRun> runs = result.runs();
        List<String> guards = new ArrayList<>();
        double[] committed = new double[runs.size()];
        double[] withinSlo = new double[runs.size()];
        double[] p99 = new double[runs.size()];
        double[] refused = new double[runs.size()];
        for (int i = 0; i < runs.size(); i++) {
            GuardRun run = runs.get(i);
            guards.add(run.guard().shortLabel());
            committed[i] = run.committedPerSecond();
            withinSlo[i] = run.committedWithinSloPerSecond();
            p99[i] = run.successes().p99();
            refused[i] = 100 * QueueTargets.refusedShare(run);
        }
        Charts.barPanels(file, guards, List.of(
                new Charts.Panel(title + ": goodput", "commits per second", false, List.of(
                        new Charts.Bars("all commits", committed),
                        new Charts.Bars("commits within SLO " + result.slo().toMillis() + " ms", withinSlo)),
                        List.of(new Charts.Reference("closed loop " + number(result.closedLoopPerSecond(), 0) + "/s",
                                result.closedLoopPerSecond()))),
                new Charts.Panel(title + ": success latency", "success p99 (ms, log)", true,
                        List.of(new Charts.Bars("success p99", p99)), List.of(
                                new Charts.Reference("cost p50 " + number(result.unloadedCost().p50(), 1) + " ms",
                                        result.unloadedCost().p50()),
                                p99Target)),
                new Charts.Panel(title + ": refusals", "refused calls (% of calls)", false,
                        List.of(new Charts.Bars("refused (guard or pool)", refused)), refusalTargets)));
    }

    private static String byReason(Map<String, Integer> refusals) {
        return refusals.isEmpty() ? "–" : refusals.entrySet().stream()
                .map(reason -> reason.getKey() + " " + reason.getValue()).collect(Collectors.joining(", "));
    }
}
