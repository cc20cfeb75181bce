package dev.dbbulkhead.benchmarks.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.load.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fraction of a second of one corner of the tenant corners, so that the harness keeps working. Asserts only that
 * every call is counted once, the gate was watched and the corner gets a verdict, never what the verdict is.
 */
class TenantCornersSmokeTests {

    @TempDir
    Path out;

    @Test
    void aCornerAccountsForEveryCallOfEveryTenantAndGetsAVerdict() throws Exception {
        TenantCornersRun.Result result = TenantCornersRun.run(true);

        assertThat(result.corners()).hasSize(1);
        TenantCornersRun.Corner corner = result.corners().get(0);
        assertThat(corner.calibration().capacity()).as("measured capacity").isPositive();
        assertThat(corner.calibration().sleep()).as("calibrated sleep").isPositive();
        assertThat(corner.run().meanHold()).as("the gate timed the holds").isPositive();
        assertThat(corner.run().busy()).as("watched").isBetween(0.0, 1.0);
        assertThat(corner.run().streams()).hasSize(SchedulerRun.TENANT_COUNT);
        for (GateCase.StreamResult stream : corner.run().streams()) {
            assertThat(stream.counts().values().stream().mapToInt(Integer::intValue).sum())
                    .as(stream.name() + " counts every call once").isEqualTo(stream.offered());
            assertThat(stream.counts().get(Outcome.FAILED)).as("unexpected failures: %s", stream.firstFailure())
                    .isZero();
        }
        assertThat(corner.run().stream(SchedulerRun.noisyTenant()).offered()).isPositive();

        String report = TenantCornersReport.write(result, "- environment\n", out);
        assertThat(Files.readString(out.resolve(TenantCornersReport.FILE))).isEqualTo(report);
        assertThat(report).contains(corner.met() ? Target.State.MET.label() : Target.State.NOT_MET.label())
                .contains("5 ms");
    }
}
