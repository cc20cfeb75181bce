package dev.dbbulkhead.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryBackoffTests {

    private static final long MS = Duration.ofMillis(1).toNanos();
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final RetryBudgetConfig config = RetryBudgetConfig.builder().backoffBase(Duration.ofMillis(10))
            .backoffCap(Duration.ofSeconds(1)).build();
    private final RetryBackoff longest = new RetryBackoff(config, bound -> bound);
    private final RetryBackoff shortest = new RetryBackoff(config, bound -> 0);

    @Test
    void theLongestWaitDoublesFromTheBaseUpToTheCap() {
        assertThat(longest.nanosUntilNext(0, NO_DEADLINE)).isEqualTo(10 * MS);
        assertThat(longest.nanosUntilNext(1, NO_DEADLINE)).isEqualTo(20 * MS);
        assertThat(longest.nanosUntilNext(6, NO_DEADLINE)).isEqualTo(640 * MS);
        assertThat(longest.nanosUntilNext(7, NO_DEADLINE)).as("1280 ms, capped").isEqualTo(1_000 * MS);
        assertThat(longest.nanosUntilNext(Integer.MAX_VALUE, NO_DEADLINE)).as("no overflow").isEqualTo(1_000 * MS);
    }

    @Test
    void theShortestWaitIsNoneAtAll() {
        assertThat(shortest.nanosUntilNext(5, NO_DEADLINE)).isZero();
    }

    @Test
    void theWaitNeverExceedsTheTimeLeft() {
        assertThat(longest.nanosUntilNext(7, 300 * MS)).isEqualTo(300 * MS);
        assertThat(longest.nanosUntilNext(0, 10 * MS)).isEqualTo(10 * MS);
    }

    @Test
    void lessTimeLeftThanTheBaseMeansDoNotRetry() {
        assertThat(longest.nanosUntilNext(0, 10 * MS - 1)).isEqualTo(RetryBackoff.NO_TIME_LEFT);
        assertThat(shortest.nanosUntilNext(3, 0)).isEqualTo(RetryBackoff.NO_TIME_LEFT);
        assertThat(shortest.nanosUntilNext(3, -5 * MS)).as("a deadline already past").isEqualTo(RetryBackoff.NO_TIME_LEFT);
    }

    @Test
    void theRandomDrawStaysWithinZeroAndTheCeiling() {
        RetryBackoff jittered = new RetryBackoff(config);

        for (int draw = 0; draw < 10_000; draw++) {
            assertThat(jittered.nanosUntilNext(2, NO_DEADLINE)).isBetween(0L, 40 * MS);
            assertThat(jittered.nanosUntilNext(9, 250 * MS)).isBetween(0L, 250 * MS);
        }
    }

    @Test
    void aNegativeAttemptIsRefusedNamingTheValueAndTheRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> longest.nanosUntilNext(-1, NO_DEADLINE))
                .withMessage("attempt must be between 0 and 2147483647, was -1");
    }
}
