package dev.dbbulkhead.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommitFailuresTests {

    @ParameterizedTest(name = "SQLState {0} at commit: known rollback {1}")
    @CsvSource({
            "23505, true", // unique_violation of a deferred constraint
            "40001, true", // serialization_failure
            "40P01, true", // deadlock_detected
            "40003, false", // statement_completion_unknown: no verdict
            "08006, false", // connection_failure
            "57P01, false"}) // admin_shutdown
    void onlyAVerdictOfTheDatabaseIsAKnownRollback(String sqlState, boolean knownRollback) {
        RuntimeException wrapped = new RuntimeException("commit failed", new SQLException("commit", sqlState));

        assertThat(CommitFailures.isKnownRollback(wrapped)).isEqualTo(knownRollback);
    }
}
