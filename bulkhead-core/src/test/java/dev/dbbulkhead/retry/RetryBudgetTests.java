package dev.dbbulkhead.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The budget on a clock moved by hand: every window boundary is placed exactly, nothing sleeps. */
class RetryBudgetTests {

    private final AtomicLong nanos = new AtomicLong();

    private RetryBudget budget(double percentCanRetry, int minRetriesPerSecond) {
        return new RetryBudget(RetryBudgetConfig.builder().percentCanRetry(percentCanRetry)
                .minRetriesPerSecond(minRetriesPerSecond).window(Duration.ofSeconds(10)).build(), nanos::get);
    }

    private void advanceTo(Duration sinceStart) {
        nanos.set(sinceStart.toNanos());
    }

    private static long withdrawUntilRefused(RetryBudget budget) {
        long granted = 0;
        while (budget.tryWithdraw()) {
            granted++;
        }
        return granted;
    }

    private static void recordFirstAttempts(RetryBudget budget, int count) {
        IntStream.range(0, count).forEach(attempt -> budget.recordFirstAttempt());
    }

    @Test
    void theFloorAloneAllowsMinRetriesPerSecondTimesTheWindowWithNoFirstAttempts() {
        RetryBudget budget = budget(0.2, 10);

        assertThat(budget.balance()).isEqualTo(100);
        assertThat(withdrawUntilRefused(budget)).isEqualTo(100);
        assertThat(budget.balance()).isZero();
    }

    @Test
    void firstAttemptsRaiseTheAllowanceByTheShare() {
        RetryBudget budget = budget(0.2, 0);
        assertThat(budget.tryWithdraw()).as("no floor, no first attempt: nothing to retry on").isFalse();

        recordFirstAttempts(budget, 1_000);

        assertThat(budget.balance()).isEqualTo(200);
        assertThat(withdrawUntilRefused(budget)).isEqualTo(200);
    }

    @Test
    void theShareAndTheFloorAddUp() {
        RetryBudget budget = budget(0.5, 1);

        recordFirstAttempts(budget, 7);

        assertThat(withdrawUntilRefused(budget)).as("10 from the floor, 3 of 7 first attempts (rounded down)")
                .isEqualTo(13);
    }

    @Test
    void firstAttemptsOlderThanTheWindowStopCounting() {
        RetryBudget budget = budget(1.0, 0);
        recordFirstAttempts(budget, 5);

        advanceTo(Duration.ofMillis(9_999));
        assertThat(budget.balance()).as("the first bucket is still inside the window").isEqualTo(5);

        advanceTo(Duration.ofSeconds(10));
        assertThat(budget.balance()).as("the first bucket has left the window").isZero();
        assertThat(budget.tryWithdraw()).isFalse();
    }

    @Test
    void theWindowSlidesOneBucketAtATime() {
        RetryBudget budget = budget(1.0, 0);
        recordFirstAttempts(budget, 1);
        advanceTo(Duration.ofSeconds(4));
        recordFirstAttempts(budget, 2);

        advanceTo(Duration.ofSeconds(10));
        assertThat(budget.balance()).as("only the attempts of second 4").isEqualTo(2);
        advanceTo(Duration.ofMillis(13_999));
        assertThat(budget.balance()).isEqualTo(2);
        advanceTo(Duration.ofSeconds(14));
        assertThat(budget.balance()).isZero();
    }

    @Test
    void retriesGrantedLeaveTheWindowTooAndTheFloorIsThereAgain() {
        RetryBudget budget = budget(0.2, 1);
        assertThat(withdrawUntilRefused(budget)).isEqualTo(10);

        advanceTo(Duration.ofSeconds(5));
        assertThat(budget.tryWithdraw()).as("the ten retries are still inside the window").isFalse();

        advanceTo(Duration.ofSeconds(10));
        assertThat(withdrawUntilRefused(budget)).isEqualTo(10);
    }

    @Test
    void afterAGapLongerThanTheWholeRingNothingOldCounts() {
        RetryBudget budget = budget(1.0, 0);
        recordFirstAttempts(budget, 3);
        assertThat(budget.tryWithdraw()).isTrue();

        advanceTo(Duration.ofHours(5));
        recordFirstAttempts(budget, 1);

        assertThat(budget.balance()).isEqualTo(1);
        assertThat(withdrawUntilRefused(budget)).isEqualTo(1);
    }

    @Test
    void aRefusedWithdrawalConsumesNothing() {
        RetryBudget budget = budget(1.0, 0);
        recordFirstAttempts(budget, 2);
        assertThat(withdrawUntilRefused(budget)).isEqualTo(2);

        for (int refused = 0; refused < 1_000; refused++) {
            assertThat(budget.tryWithdraw()).isFalse();
        }
        assertThat(budget.balance()).isZero();

        budget.recordFirstAttempt();
        assertThat(budget.balance()).as("a thousand refusals left no debt").isEqualTo(1);
        assertThat(budget.tryWithdraw()).isTrue();
    }

    @Test
    void theBalanceIsNeverNegativeWhenFirstAttemptsLeaveBeforeTheRetriesTheyPaidFor() {
        RetryBudget budget = budget(1.0, 0);
        recordFirstAttempts(budget, 4);
        advanceTo(Duration.ofSeconds(5));
        assertThat(withdrawUntilRefused(budget)).isEqualTo(4);

        advanceTo(Duration.ofSeconds(10));

        assertThat(budget.balance()).isZero();
        budget.recordFirstAttempt();
        assertThat(budget.tryWithdraw()).as("the four retries of second 5 still count against the window").isFalse();
    }

    @Test
    void aClockWithANegativeOriginCountsTheSame() {
        nanos.set(-Duration.ofMillis(500).toNanos());
        RetryBudget budget = budget(1.0, 0);
        recordFirstAttempts(budget, 3);

        // The attempts fell in the bucket [-1 s, 0): it leaves the window when the bucket [9 s, 10 s) enters.
        nanos.set(Duration.ofMillis(8_999).toNanos());
        assertThat(budget.balance()).isEqualTo(3);
        nanos.set(Duration.ofSeconds(9).toNanos());
        assertThat(budget.balance()).isZero();
    }
}
