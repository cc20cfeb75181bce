package dev.dbbulkhead.benchmarks.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smallest fleet of the scale run, briefly, so that its harness keeps working: the members reach a fair split
 * (the run waits for it) and the report has its row. Never asserts what the row measures.
 */
class FleetScaleSmokeTests {

    @TempDir
    Path out;

    @Test
    void theQuickRunSplitsTheBudgetAmongTenMembersAndReportsTheirRowsWithTheTotalHeldAndMoving() throws Exception {
        FleetScaleRun.run(true, out);

        String report = Files.readString(out.resolve("fleet-scale.md"));
        assertThat(report).contains("| members | renewals/s |", "| " + FleetScaleRun.SIZES[0] + " | ")
                .doesNotContain("not within")
                .contains("| " + FleetScaleRun.SIZES[0] + " | holds | ", "| " + FleetScaleRun.SIZES[0]
                        + " | moves every heartbeat | ", "allowed themselves together");
    }
}
