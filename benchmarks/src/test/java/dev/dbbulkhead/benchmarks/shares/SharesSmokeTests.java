package dev.dbbulkhead.benchmarks.shares;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.load.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fraction of a second of each part of the tenants and criticality section, so that the harness keeps working.
 * Asserts only that every call is counted once and every target gets a verdict, never what the verdict is.
 */
class SharesSmokeTests {

    @TempDir
    Path out;

    @Test
    void everyPartAccountsForEveryCallAndEveryTargetGetsAVerdict() throws Exception {
        SharesRun.Result result = SharesRun.run(true, Optional.empty());

        assertThat(result.tenants().capacity()).as("measured capacity").isPositive();
        assertThat(result.tenants().runs()).hasSize(2 * TenantsScenario.GUARDS.size());
        for (TenantRun run : result.tenants().runs()) {
            assertThat(run.tenants()).hasSize(TenantsScenario.TENANTS);
            assertCounted(run.guard().label(), run.tenants());
        }
        assertThat(result.criticality().capacity()).as("measured capacity").isPositive();
        assertThat(result.criticality().runs()).extracting(CriticalityRun::rulesOn).containsExactly(true, false);
        for (CriticalityRun run : result.criticality().runs()) {
            assertCounted("criticality rules " + run.rulesOn(), List.copyOf(run.classes().values()));
        }
        assertThat(result.flood().nanosPerCall()).hasSize(KeyFlood.CHUNKS);
        assertThat(Arrays.stream(result.flood().nanosPerCall()).allMatch(nanos -> nanos > 0)).as("every chunk timed")
                .isTrue();
        assertThat(result.flood().flowsBefore()).as("the gate has rules: the flows it knows are read").isNotNegative();

        List<Verdict> verdicts = result.verdicts();
        assertThat(verdicts).hasSize(9);
        assertThat(verdicts).filteredOn(verdict -> verdict.target().startsWith("lending"))
                .hasSize(2).allMatch(verdict -> verdict.state() != Verdict.State.NOT_RUN);
        assertThat(verdicts).filteredOn(verdict -> verdict.target().startsWith("fast path"))
                .singleElement().extracting(Verdict::state).isEqualTo(Verdict.State.NOT_RUN);
        assertThat(verdicts).filteredOn(verdict -> !verdict.target().startsWith("fast path"))
                .hasSize(8).allMatch(verdict -> verdict.state() != Verdict.State.NOT_RUN);

        SharesReport.write(result, "- environment\n", out);
        String report = Files.readString(out.resolve(SharesReport.FILE));
        assertThat(report).contains(TenantsScenario.GUARDS.stream().map(TenantGuard::label).toList())
                .contains("### Lending between workloads");
        for (Verdict verdict : verdicts) {
            assertThat(report).contains(verdict.target());
        }
    }

    private static void assertCounted(String run, List<StreamOutcome> streams) {
        for (StreamOutcome stream : streams) {
            assertThat(stream.offered()).as(run + " " + stream.name()).isPositive();
            assertThat(stream.accountsForEveryCall()).as(run + " " + stream.name() + " counts every call once")
                    .isTrue();
            assertThat(stream.count(Outcome.FAILED)).as("unexpected failures: %s", stream.firstFailure()).isZero();
        }
    }
}
