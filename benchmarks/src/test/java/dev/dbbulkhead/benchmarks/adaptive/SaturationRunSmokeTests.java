package dev.dbbulkhead.benchmarks.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The saturation run, briefly, so that its harness keeps working: both parts run every contender and the report has
 * their rows and verdicts. Never asserts what the rows measure.
 */
class SaturationRunSmokeTests {

    @TempDir
    Path out;

    @Test
    void theQuickRunReportsTheLockSweepAndTheSurgeForEveryContender() throws Exception {
        SaturationRun.run(true, out);

        String report = Files.readString(out.resolve("saturation-limit.md"));
        assertThat(report).contains("## Lock contention: one hot row", "| fixed B=1 |", "| adaptive (db-bulkhead) |",
                "## A surge outside the gates", "- database signals (db-bulkhead): backed off within 2 s:",
                "goodput within the SLO against the latency limit's (a figure", "- recommend mode at B = 20",
                "## Recommend mode under a steady load", "### CPU-bound work", "### Lock-bound work: one hot row",
                "varies by at most ±1:", "within the best 10 %:");
    }

    @Test
    void aContendersRoundIsItsMedianOneWhateverTheOrderTheyRanIn() {
        assertThat(SaturationRun.medianRound(new double[] {296, 204, 260})).isEqualTo(2);
        assertThat(SaturationRun.medianRound(new double[] {260, 296, 204})).isZero();
        assertThat(SaturationRun.medianRound(new double[] {17})).isZero();
        // Of an even count, the lower middle one: the report never credits a contender with its better half.
        assertThat(SaturationRun.medianRound(new double[] {300, 100, 200, 400})).isEqualTo(2);
    }
}
