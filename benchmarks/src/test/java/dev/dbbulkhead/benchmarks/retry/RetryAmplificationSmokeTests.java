package dev.dbbulkhead.benchmarks.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.load.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second of each run of the retry-amplification scenario, so that the harness keeps working. Asserts only that
 * every attempt is accounted for, never how much was retried: a second is too short for the budget's floor.
 */
class RetryAmplificationSmokeTests {

    @TempDir
    Path out;

    @Test
    void bothRunsAccountForEveryAttemptAndTheReportJudgesTheBudget() throws Exception {
        RetryAmplificationScenario.Result result = RetryAmplificationScenario.run(RetryAmplificationScenario.Timing.QUICK);

        assertThat(result.runs()).extracting(AmplificationRun::clients)
                .containsExactly(RetryRule.NO_BUDGET, RetryRule.BUDGETED);
        for (AmplificationRun run : result.runs()) {
            assertThat(run.firstAttempts()).as(run.clients()).isPositive();
            assertThat(run.count(Outcome.FAILED)).as("unexpected failures: %s", run.firstFailure()).isZero();
            // A request abandoned when the drain ran out may have had one attempt unanswered; no other.
            assertThat(run.sent() - run.ok() - run.refusedAnswers()).as("attempts answered neither 200 nor 503")
                    .isBetween(0L, (long) run.count(Outcome.ABANDONED));
            assertThat(run.count(Outcome.COMMITTED) + run.count(Outcome.REJECTED) + run.count(Outcome.ABANDONED))
                    .as("every request counted once").isEqualTo(run.firstAttempts());
            assertThat(run.successes().count()).isEqualTo(run.count(Outcome.COMMITTED));
            assertThat(run.refusedAnswers()).as("the gate was overloaded").isPositive();
        }
        assertThat(result.runs().getFirst().retriesRefused()).as("nothing refuses a retry without a budget").isZero();

        RetryAmplificationReport.write(result, "- environment\n", out);
        assertThat(Files.readString(out.resolve(RetryAmplificationReport.FILE)))
                .contains(RetryRule.NO_BUDGET, RetryRule.BUDGETED, "requests sent ≤ 1.2 × first attempts");
    }
}
