package dev.dbbulkhead.benchmarks.signals;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenth of the signals' cost run, so that its harness keeps working: the sessions it sets up are seen (the run waits
 * for them) and the report has each of its rows. Never asserts what a row measures.
 */
class SignalsCostSmokeTests {

    @TempDir
    Path out;

    @Test
    void theQuickRunSeesTheSessionsItSetUpAndReportsEveryRow() throws Exception {
        SignalsCostRun.run(true, out);

        String report = Files.readString(out.resolve("signals.md"));
        assertThat(report).contains("200 samples back to back", "OTHER=", "LOCK=", "| query time, median |",
                "| query time, p99 |",
                "| the server's CPU", "| the sampler thread's CPU |", "At the default interval of 1 s");
    }
}
