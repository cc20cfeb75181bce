package dev.dbbulkhead.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.adaptive.AdaptiveReport;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario;
import dev.dbbulkhead.benchmarks.isolation.IsolationRun;
import dev.dbbulkhead.benchmarks.isolation.IsolationScenario;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.GuardRun;
import dev.dbbulkhead.benchmarks.overload.OverloadResult;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.benchmarks.overload.TransactionGuard;
import dev.dbbulkhead.benchmarks.queue.QueueReport;
import dev.dbbulkhead.benchmarks.queue.QueueScenario;
import dev.dbbulkhead.benchmarks.queue.QueueTargets;
import dev.dbbulkhead.benchmarks.report.ScenarioReport;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A fraction of a second of each PostgreSQL scenario, so that the harness keeps working. Asserts only that the
 * results are well formed — every guard ran, every call is counted once — never how fast anything was.
 */
class ScenarioSmokeTests {

    @TempDir
    Path out;

    @Test
    void theOverloadScenarioRunsEveryGuardAndAccountsForEveryCall() throws Exception {
        OverloadResult result = OverloadScenario.run(ScenarioSettings.smoke(), OverloadScenario.GUARDS);

        assertThat(result.runs()).extracting(GuardRun::guard).containsExactlyElementsOf(OverloadScenario.GUARDS);
        assertThat(result.unloadedCost().count()).isEqualTo(ScenarioSettings.smoke().calibrationCalls());
        assertThat(result.closedLoopPerSecond()).as("closed-loop commits per second").isPositive();
        for (GuardRun run : result.runs()) {
            assertThat(run.offered()).as(run.guard().label()).isPositive();
            assertCountsAddUp(run.counts(), run.offered());
            assertThat(run.successes().count()).isEqualTo(run.count(Outcome.COMMITTED));
            assertThat(run.refusals().count())
                    .isEqualTo(run.count(Outcome.REJECTED) + run.count(Outcome.POOL_TIMEOUT));
            assertThat(run.parkedOverTime()).isNotEmpty();
        }

        ScenarioReport.writeOverload(result, out);
        assertThat(Files.readString(out.resolve("overload.md")))
                .contains(OverloadScenario.GUARDS.stream().map(TransactionGuard::label).toList());
        assertReadableChart("overload-latency.png");
        assertReadableChart("overload-goodput.png");
        assertReadableChart("overload-parked.png");
    }

    @Test
    void theIsolationScenarioRunsQuietAndFloodedWithAndWithoutBudgets() throws Exception {
        List<IsolationRun> runs = IsolationScenario.run(ScenarioSettings.smoke());

        assertThat(runs).extracting(run -> run.guard() + "/" + run.flooded()).containsExactly(
                "NONE/false", "NONE/true", "DB_BULKHEAD/false", "DB_BULKHEAD/true");
        for (IsolationRun run : runs) {
            assertThat(run.ordersOffered()).isPositive();
            assertCountsAddUp(run.orders(), run.ordersOffered());
            assertThat(run.ordersLatency().count()).isEqualTo(run.orders().get(Outcome.COMMITTED));
            if (run.flooded()) {
                assertThat(run.reportsOffered()).isPositive();
                assertCountsAddUp(run.reports(), run.reportsOffered());
            } else {
                assertThat(run.reportsOffered()).isZero();
            }
        }

        ScenarioReport.writeIsolation(runs, out, IsolationScenario.describe(ScenarioSettings.smoke()));
        assertThat(out.resolve("isolation.md")).exists();
        assertReadableChart("isolation-orders-p99.png");
    }

    @ParameterizedTest
    @EnumSource(AdaptiveScenario.Work.class)
    void theAdaptiveScenarioSweepsFixedLimitsAgainstBothAdaptiveOnesAndChartsTheChange(AdaptiveScenario.Work work)
            throws Exception {
        AdaptiveScenario.Result result = AdaptiveScenario.run(AdaptiveScenario.Timing.QUICK, work);

        assertThat(result.sweep()).extracting(run -> run.label()).containsExactly("fixed B=1", "fixed B=2",
                "fixed B=4", "fixed B=8", "fixed B=16", "fixed B=20", "adaptive (db-bulkhead)", "Gradient2 (Netflix)");
        assertThat(result.change()).extracting(run -> run.label())
                .containsExactly("adaptive (db-bulkhead)", "fixed B=20", "Gradient2 (Netflix)");
        assertThat(result.cost().count()).isPositive();
        for (var run : result.sweep()) {
            assertCountsAddUp(run.counts(), run.log().offered());
            assertThat(run.limits()).as(run.label()).isNotEmpty();
        }

        AdaptiveReport.write(result, out);
        assertThat(Files.readString(out.resolve(work.file() + ".md"))).contains("Best fixed B", "Gradient2 (Netflix)");
        assertReadableChart(work.file() + "-limit.png");
        assertReadableChart(work.file() + "-p99.png");
    }

    @Test
    void theQueueScenarioRunsEveryGuardUnderSustainedAndBurstyLoadAndJudgesEveryTarget() throws Exception {
        QueueScenario.Result result = QueueScenario.run(QueueScenario.Timing.QUICK);

        for (OverloadResult part : List.of(result.sustained(), result.bursty())) {
            assertThat(part.runs()).extracting(GuardRun::guard).containsExactlyElementsOf(QueueScenario.GUARDS);
            assertThat(part.closedLoopPerSecond()).as("closed-loop commits per second").isPositive();
            for (GuardRun run : part.runs()) {
                assertThat(run.offered()).as(run.guard().label()).isPositive();
                assertThat(run.count(Outcome.COMMITTED) + run.refused() + run.count(Outcome.FAILED)
                        + run.count(Outcome.ABANDONED)).as(run.guard().label()).isEqualTo(run.offered());
                if (part == result.bursty()) {
                    assertThat(run.successes().count()).isEqualTo(run.count(Outcome.COMMITTED));
                } else {
                    assertThat(run.successes().count()).as(run.guard().label() + ": the onset's commits left out")
                            .isLessThanOrEqualTo(run.count(Outcome.COMMITTED));
                }
                assertThat(run.refusalsByReason().values().stream().mapToInt(Integer::intValue).sum())
                        .as(run.guard().label() + " refusals by reason").isEqualTo(run.refused());
                boolean gated = run.guard() == TransactionGuard.DB_BULKHEAD
                        || run.guard() == TransactionGuard.DB_BULKHEAD_CODEL;
                assertThat(run.shedCount().isPresent()).as(run.guard().label() + " reports sheds").isEqualTo(gated);
            }
        }
        assertThat(result.burstSize()).isEqualTo(20);
        assertThat(result.bursty().runs()).allSatisfy(run ->
                assertThat(run.offered() % result.burstSize()).as("whole bursts only").isZero());

        QueueReport.write(result, out);
        assertJudgedReport("queue-sustained", QueueTargets.sustained(result.sustained()));
        assertJudgedReport("queue-bursty", QueueTargets.bursty(result.bursty()));
    }

    /** Every guard has a row, every target a verdict, and the chart stacks its panels one under the other. */
    private void assertJudgedReport(String part, List<QueueTargets.Target> targets) throws Exception {
        String table = Files.readString(out.resolve(part + ".md"));
        assertThat(table).contains(QueueScenario.GUARDS.stream().map(TransactionGuard::label).toList());
        assertThat(table).contains(targets.stream().map(QueueTargets.Target::target).toList());
        assertThat(table.lines().filter(line -> line.endsWith("| **met** |") || line.endsWith("| **not met** |")))
                .as(part + " verdicts").hasSize(targets.size());
        BufferedImage chart = assertReadableChart(part + ".png");
        assertThat(chart.getHeight()).as(part + ": panels stacked").isGreaterThan(chart.getWidth());
    }

    private static void assertCountsAddUp(Map<Outcome, Integer> counts, int offered) {
        assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(offered);
    }

    private BufferedImage assertReadableChart(String name) throws Exception {
        BufferedImage chart = ImageIO.read(out.resolve(name).toFile());
        assertThat(chart).as(name).isNotNull();
        assertThat(chart.getWidth()).isPositive();
        return chart;
    }
}
