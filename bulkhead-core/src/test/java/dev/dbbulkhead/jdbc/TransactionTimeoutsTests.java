package dev.dbbulkhead.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.dbbulkhead.gate.Permit;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TransactionTimeoutsTests {

    @Test
    void nothingIsSentWithoutLimits() {
        assertThat(TransactionTimeouts.NONE.setLocalStatement(Permit.NO_DEADLINE)).isNull();
        assertThat(TransactionTimeouts.NONE.isEmpty()).isTrue();
    }

    @Test
    void timeoutsBecomeWholeMillisecondsInOneSetLocalStatement() {
        TransactionTimeouts limits = TransactionTimeouts.of(Duration.ofSeconds(2), Duration.ofMillis(250), null);

        assertThat(limits.setLocalStatement(Permit.NO_DEADLINE))
                .isEqualTo("SET LOCAL statement_timeout = 2000; SET LOCAL lock_timeout = 250");
    }

    @Test
    void theRemainingBudgetCapsTheStatementTimeoutAndIsAtLeastOneMillisecond() {
        TransactionTimeouts limits = TransactionTimeouts.of(Duration.ofSeconds(2), null, Duration.ofSeconds(5));

        assertThat(limits.setLocalStatement(TimeUnit.MILLISECONDS.toNanos(1500)))
                .isEqualTo("SET LOCAL statement_timeout = 1500");
        assertThat(limits.setLocalStatement(TimeUnit.MILLISECONDS.toNanos(4000)))
                .isEqualTo("SET LOCAL statement_timeout = 2000");
        assertThat(limits.setLocalStatement(-5)).isEqualTo("SET LOCAL statement_timeout = 1");
    }

    @Test
    void aDeadlineAloneSetsTheStatementTimeoutToTheRemainder() {
        TransactionTimeouts limits = TransactionTimeouts.of(null, null, Duration.ofSeconds(1));

        assertThat(limits.setLocalStatement(TimeUnit.MILLISECONDS.toNanos(800) + 1))
                .isEqualTo("SET LOCAL statement_timeout = 801");
    }

    @Test
    void aRemainingBudgetBecomesWholeMillisecondsRoundedUpWithoutOverflowAtAnyLength() {
        assertThat(TransactionTimeouts.remainingMillis(Long.MIN_VALUE)).as("long spent").isEqualTo(1);
        assertThat(TransactionTimeouts.remainingMillis(0)).isEqualTo(1);
        assertThat(TransactionTimeouts.remainingMillis(1)).as("1 ns").isEqualTo(1);
        assertThat(TransactionTimeouts.remainingMillis(1_000_000)).as("1 ms").isEqualTo(1);
        assertThat(TransactionTimeouts.remainingMillis(1_000_001)).isEqualTo(2);
        assertThat(TransactionTimeouts.remainingMillis(TimeUnit.MILLISECONDS.toNanos(Integer.MAX_VALUE)))
                .as("Integer.MAX_VALUE ms").isEqualTo(Integer.MAX_VALUE);
        assertThat(TransactionTimeouts.remainingMillis(Long.MAX_VALUE)).as("Long.MAX_VALUE ns")
                .isEqualTo(9_223_372_036_855L);
    }

    @Test
    void theStatementTimeoutFromARemainingBudgetSaturatesAtPostgresLargestAndNeverWraps() {
        TransactionTimeouts deadlineOnly = TransactionTimeouts.of(null, null, Duration.ofMillis(Integer.MAX_VALUE));
        TransactionTimeouts withStatementTimeout = TransactionTimeouts.of(Duration.ofSeconds(2), null, Duration.ofSeconds(5));
        long longestBudget = Permit.NO_DEADLINE - 1;

        assertThat(deadlineOnly.setLocalStatement(1)).as("1 ns").isEqualTo("SET LOCAL statement_timeout = 1");
        assertThat(deadlineOnly.setLocalStatement(1_000_000)).as("1 ms").isEqualTo("SET LOCAL statement_timeout = 1");
        assertThat(deadlineOnly.setLocalStatement(TimeUnit.MILLISECONDS.toNanos(Integer.MAX_VALUE)))
                .as("Integer.MAX_VALUE ms").isEqualTo("SET LOCAL statement_timeout = 2147483647");
        assertThat(deadlineOnly.setLocalStatement(TimeUnit.MILLISECONDS.toNanos(Integer.MAX_VALUE) + 1))
                .as("just past PostgreSQL's range").isEqualTo("SET LOCAL statement_timeout = 2147483647");
        assertThat(deadlineOnly.setLocalStatement(longestBudget)).as("the longest budget")
                .isEqualTo("SET LOCAL statement_timeout = 2147483647");
        assertThat(withStatementTimeout.setLocalStatement(longestBudget))
                .as("a deadline longer than the statement timeout").isEqualTo("SET LOCAL statement_timeout = 2000");
    }

    @Test
    void thePerCallDeadlineCountsOnlyWhenItIsShorter() {
        TransactionTimeouts limits = TransactionTimeouts.of(null, null, Duration.ofSeconds(1));

        assertThat(limits.deadlineWith(null)).isEqualTo(Duration.ofSeconds(1));
        assertThat(limits.deadlineWith(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(300));
        assertThat(limits.deadlineWith(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(1));
        assertThat(TransactionTimeouts.NONE.deadlineWith(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void valuesThatAreNotWholeMillisecondsInRangeAreRefusedNamingThem() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TransactionTimeouts.of(Duration.ZERO, null, null))
                .withMessage("statementTimeout must be a whole number of milliseconds between 1ms and 2147483647ms, was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TransactionTimeouts.of(null, Duration.ofNanos(1_500_000), null))
                .withMessageContaining("lockTimeout").withMessageEndingWith("was PT0.0015S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TransactionTimeouts.of(null, null, Duration.ofDays(30)))
                .withMessageContaining("deadline").withMessageEndingWith("was PT720H");
    }
}
