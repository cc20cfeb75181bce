package dev.dbbulkhead.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.RejectionReason;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class RetryableFailuresTests {

    @ParameterizedTest(name = "SQLState {0}: {1}")
    @CsvSource({
            "40001, SERIALIZATION_FAILURE",
            "40P01, DEADLOCK",
            "40003, NOT_RETRYABLE", // statement_completion_unknown: no verdict
            "40002, NOT_RETRYABLE", // integrity constraint violation at commit: running it again fails again
            "55P03, NOT_RETRYABLE", // lock_not_available: a lock_timeout, the wait would repeat
            "57014, NOT_RETRYABLE", // query_canceled: a statement_timeout spent the time
            "08006, NOT_RETRYABLE"}) // connection_failure: the outcome of the work is not known
    void onlySerializationFailuresAndDeadlocksAreRetryableSqlStates(String sqlState, RetryDecision expected) {
        assertThat(RetryableFailures.classify(new SQLException("failed", sqlState))).isEqualTo(expected);
        assertThat(RetryableFailures.isRetryable(new SQLException("failed", sqlState))).isEqualTo(expected.retryable());
    }

    @Test
    void anSqlExceptionWithoutSqlStateOrNoSqlExceptionAtAllIsNotRetryable() {
        assertThat(RetryableFailures.classify(new SQLException("connection lost"))).isEqualTo(RetryDecision.NOT_RETRYABLE);
        assertThat(RetryableFailures.classify(new IllegalStateException("work failed")))
                .isEqualTo(RetryDecision.NOT_RETRYABLE);
    }

    @Test
    void theSqlStateIsFoundDeepInTheCauseChain() {
        Throwable translated = new IllegalStateException("service",
                new RuntimeException("as a framework translates it",
                        new SQLTransactionRollbackException("deadlock detected", "40P01")));

        assertThat(RetryableFailures.classify(translated)).isEqualTo(RetryDecision.DEADLOCK);
    }

    @Test
    void theSqlStateIsFoundAmongTheNextExceptionsOfABatch() {
        BatchUpdateException batch = new BatchUpdateException("batch entry 3 was aborted", "25P02", new int[0]);
        batch.setNextException(new SQLException("unrelated", "22012"));
        batch.setNextException(new SQLException("could not serialize access", "40001"));

        assertThat(RetryableFailures.classify(new RuntimeException("insert", batch)))
                .isEqualTo(RetryDecision.SERIALIZATION_FAILURE);
    }

    @Test
    void theCausesOfANextExceptionAreSearchedToo() {
        SQLException batch = new SQLException("batch failed", "25P02");
        batch.setNextException(new SQLException("wrapper", "XX000", new SQLException("deadlock", "40P01")));

        assertThat(RetryableFailures.classify(batch)).isEqualTo(RetryDecision.DEADLOCK);
    }

    @ParameterizedTest
    @EnumSource(RejectionReason.class)
    void everyRefusalOfTheGateIsRetryable(RejectionReason reason) {
        BulkheadRejectedException rejected = new BulkheadRejectedException("orders", reason, false);

        assertThat(RetryableFailures.classify(rejected)).isEqualTo(RetryDecision.REJECTED_BY_GATE);
        assertThat(RetryableFailures.classify(new RuntimeException("wrapped", rejected)))
                .isEqualTo(RetryDecision.REJECTED_BY_GATE);
    }

    @Test
    void anUnknownCommitOutcomeWinsOverARetryableCause() {
        CommitOutcomeUnknownException unknown = new CommitOutcomeUnknownException("orders",
                new SQLException("could not serialize access", "40001"));

        assertThat(RetryableFailures.classify(unknown)).isEqualTo(RetryDecision.OUTCOME_UNKNOWN);
        assertThat(RetryableFailures.isRetryable(unknown)).isFalse();
    }

    @Test
    void anUnknownCommitOutcomeDeeperThanARetryableFailureStillWins() {
        SQLException deadlock = new SQLException("deadlock", "40P01");
        deadlock.setNextException(new SQLException("commit", "08006",
                new CommitOutcomeUnknownException("orders", new SQLException("connection lost", "08006"))));
        Throwable failure = new RuntimeException("service",
                new BulkheadRejectedException("orders", RejectionReason.ADMISSION_FULL, false).initCause(deadlock));

        assertThat(RetryableFailures.classify(failure)).isEqualTo(RetryDecision.OUTCOME_UNKNOWN);
    }

    @Test
    void suppressedExceptionsAreNotSearched() {
        RuntimeException workFailed = new RuntimeException("work failed");
        workFailed.addSuppressed(new SQLException("rollback failed", "40P01"));

        assertThat(RetryableFailures.classify(workFailed)).isEqualTo(RetryDecision.NOT_RETRYABLE);
    }

    @Test
    void chainsThatLoopAreSearchedOnce() {
        SQLException first = new SQLException("first", "25P02");
        SQLException second = new SQLException("second", "40001");
        first.setNextException(second);
        second.setNextException(first);

        assertThat(RetryableFailures.classify(first)).isEqualTo(RetryDecision.SERIALIZATION_FAILURE);
        SQLException alone = new SQLException("alone", "25P02");
        alone.setNextException(alone);
        assertThat(RetryableFailures.classify(alone)).isEqualTo(RetryDecision.NOT_RETRYABLE);
    }
}
