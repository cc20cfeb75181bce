package dev.dbbulkhead.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.UncategorizedSQLException;

/**
 * Which failures count as lock failures, as Spring's translation hands them over: the driver's SQLState decides,
 * wherever the exception sits in the cause chain. (The 55P03 a real lock wait raises is counted on PostgreSQL in
 * BulkheadMetricsTests; a deadlock cannot be provoked on one side deterministically, so its SQLState is read here.)
 */
class LockFailureTests {

    static Stream<Arguments> failures() {
        SQLException lockTimeout = new SQLException("canceling statement due to lock timeout", "55P03");
        return Stream.of(
                Arguments.of("a lock wait past lock_timeout, as JdbcTemplate reports it",
                        new UncategorizedSQLException("update", "UPDATE product", lockTimeout), LockFailure.TIMEOUT),
                Arguments.of("a lock wait past lock_timeout, as Hibernate's is translated",
                        new CannotAcquireLockException("update", lockTimeout), LockFailure.TIMEOUT),
                Arguments.of("a broken deadlock, wrapped twice", new IllegalStateException("service",
                        new PessimisticLockingFailureException("update",
                                new SQLException("deadlock detected", "40P01"))), LockFailure.DEADLOCK),
                Arguments.of("a statement timeout", new QueryTimeoutException("select",
                        new SQLException("canceling statement due to statement timeout", "57014")), null),
                Arguments.of("an SQLException without SQLState", new SQLException("connection lost"), null),
                Arguments.of("no SQLException at all", new IllegalStateException("work failed"), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void theSqlStateOfTheFirstSqlExceptionInTheCauseChainDecides(String failure, Throwable thrown,
                                                                 LockFailure expected) {
        assertThat(LockFailure.of(thrown)).isEqualTo(expected);
    }
}
