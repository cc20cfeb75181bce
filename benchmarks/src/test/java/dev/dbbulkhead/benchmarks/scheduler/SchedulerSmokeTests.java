package dev.dbbulkhead.benchmarks.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.lending.BorrowersScenario;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fraction of a second of each case of the scheduler run, so that the harness keeps working. Asserts only that
 * every call is counted once, the gate was watched, and every target gets a verdict, never what the verdict is.
 */
class SchedulerSmokeTests {

    @TempDir
    Path out;

    @Test
    void everyCaseAccountsForEveryCallAndEveryTargetGetsAVerdict() throws Exception {
        SchedulerRun.Result result = SchedulerRun.run(true);

        assertThat(result.capacity()).as("measured capacity").isPositive();
        List<GateCase.Result> runs = new ArrayList<>(List.of(result.noisy(), result.noisyNoRules(),
                result.twoTenants32(), result.twoTenantsHowTo(), result.roomShares(), result.roomNoRules(),
                result.keyless(), result.criticalityLarge(), result.criticalitySmall(), result.requestsFifo().run(),
                result.requestsInProgressFirst().run()));
        for (GateCase.Result run : runs) {
            assertThat(run.busy()).as(run.name() + " watched").isBetween(0.0, 1.0);
            assertThat(run.overFairShareWhileFree()).as(run.name()).isBetween(0, run.overFairShare());
            for (GateCase.StreamResult stream : run.streams()) {
                assertThat(stream.offered()).as(run.name() + " " + stream.name()).isPositive();
                assertThat(stream.counts().values().stream().mapToInt(Integer::intValue).sum())
                        .as(run.name() + " " + stream.name() + " counts every call once").isEqualTo(stream.offered());
                assertThat(stream.counts().get(Outcome.FAILED)).as("unexpected failures: %s", stream.firstFailure())
                        .isZero();
            }
        }
        for (SchedulerRun.RequestsResult requests : List.of(result.requestsFifo(), result.requestsInProgressFirst())) {
            assertThat(requests.operationsCommitted() + requests.operationsRefused())
                    .as("operations of " + requests.run().name())
                    .isBetween(requests.requests(), SchedulerRun.OPERATIONS_PER_REQUEST * requests.requests());
        }
        assertThat(result.roomKeys()).hasSize(SchedulerRun.TENANT_COUNT).doesNotHaveDuplicates()
                .filteredOn(key -> HashedKeySlots.collides(key, result.roomKeys()))
                .as("keys sharing a hashed slot").hasSize(2 * SchedulerRun.COLLIDING_PAIRS);

        List<Target> targets = result.targets();
        for (BorrowersScenario.Run run : List.of(result.borrowers().without(), result.borrowers().with())) {
            for (CallLog log : List.of(run.reports(), run.exports())) {
                assertThat(log.offered()).as(run.label()).isPositive();
                assertThat(log.counts().values().stream().mapToInt(Integer::intValue).sum())
                        .as(run.label() + " counts every call once").isEqualTo(log.offered());
                assertThat(log.counts().get(Outcome.FAILED)).as("unexpected failures: %s", log.firstFailure())
                        .isZero();
            }
        }
        for (String part : List.of("a.", "b.", "c.", "d.", "e.", "f.", "g.", "h.")) {
            assertThat(targets).as("targets of " + part).anyMatch(target -> target.target().startsWith(part));
        }
        assertThat(targets).filteredOn(target -> target.target().startsWith("g. (reference)")).hasSize(3)
                .allMatch(target -> target.state() != Target.State.NOT_SUPPORTED);

        String report = SchedulerReport.write(result, "- environment\n", out);
        assertThat(Files.readString(out.resolve(SchedulerReport.FILE))).isEqualTo(report);
        for (Target target : targets) {
            assertThat(report).contains(target.target());
        }
    }
}
