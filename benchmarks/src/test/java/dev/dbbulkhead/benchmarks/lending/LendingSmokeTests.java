package dev.dbbulkhead.benchmarks.lending;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.load.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fractions of a second of each phase of the lending scenario, so that the harness keeps working. Asserts only that
 * every call is counted once and that every target gets a verdict, never what was measured: the phases are too short.
 */
class LendingSmokeTests {

    @TempDir
    Path out;

    @Test
    void bothRunsCountEveryCallOnceAndTheReportJudgesEveryTarget() throws Exception {
        LendingScenario.Result result = LendingScenario.run(LendingScenario.Timing.QUICK);

        for (LendingRun run : List.of(result.without(), result.with())) {
            assertThat(run.reports().offered()).as(run.label()).isPositive();
            assertThat(run.orders().offered()).as(run.label()).isPositive();
            assertThat(run.reportsCounts().values().stream().mapToInt(Integer::intValue).sum())
                    .as("every reports call counted once").isEqualTo(run.reports().offered());
            assertThat(run.ordersCounts().values().stream().mapToInt(Integer::intValue).sum())
                    .as("every orders call counted once").isEqualTo(run.orders().offered());
            assertThat(run.reportsCounts().get(Outcome.FAILED) + run.ordersCounts().get(Outcome.FAILED))
                    .as("unexpected failures: %s %s", run.reports().firstFailure(), run.orders().firstFailure())
                    .isZero();
            assertThat(run.samples()).as("pg_stat_activity sampled").isPositive();
            assertThat(run.ledgerAfter()).as("every ledger place back").isZero();
        }

        LendingReport.write(result, "- environment\n", out);
        String report = Files.readString(out.resolve(LendingReport.FILE));
        assertThat(report).contains("≥ 1.8 × without", "≤ 1.2 × without", "never above Σ B = 8");
        // Three targets, each met or not.
        int verdicts = report.split("\\*\\*met\\*\\*", -1).length - 1 + report.split("\\*\\*not met\\*\\*", -1).length - 1;
        assertThat(verdicts).isEqualTo(3);
    }
}
