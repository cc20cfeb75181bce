package dev.dbbulkhead.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.SqlWork;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

@DisplayName("BulkheadTemplate conformance (Spring transactions, real PostgreSQL)")
class BulkheadTemplateConformanceTests extends BulkheadConformanceTests {

    @Override
    Bulkhead bulkhead(String workload, DataSource pool, int maxConcurrent, int maxQueued, Duration queueWait) {
        GateConfig config = GateConfig.builder()
                .maxConcurrent(maxConcurrent)
                .maxQueued(maxQueued)
                .queueWait(queueWait)
                .build();
        return bulkhead(new AdmissionGate(workload, config), pool, TransactionTimeouts.NONE);
    }

    @Override
    Bulkhead bulkhead(AdmissionGate gate, DataSource pool, TransactionTimeouts limits) {
        return adapt(new BulkheadTemplate(gate, new DataSourceTransactionManager(pool),
                new DefaultTransactionDefinition(), limits, pool), pool, false);
    }

    /**
     * {@code template} seen as a {@link Bulkhead}: the work gets the connection Spring bound to the admitted
     * transaction; with {@code rollbackOnly} the work then marks the transaction rollback-only.
     */
    static Bulkhead adapt(BulkheadTemplate template, DataSource pool, boolean rollbackOnly) {
        return new Bulkhead() {
            @Override
            public <T> T transaction(Duration deadline, SqlWork<T> work) throws SQLException {
                try {
                    return template.execute(deadline, status -> {
                        try {
                            // The connection Spring bound to the admitted transaction.
                            T result = work.run(DataSourceUtils.getConnection(pool));
                            if (rollbackOnly) {
                                status.setRollbackOnly();
                            }
                            return result;
                        } catch (SQLException e) {
                            // What a JdbcTemplate would do: checked SQL failures travel unchecked.
                            throw new UncheckedSqlException(e);
                        }
                    });
                } catch (UncheckedSqlException e) {
                    SQLException cause = e.getCause();
                    for (Throwable suppressed : e.getSuppressed()) {
                        cause.addSuppressed(suppressed);
                    }
                    throw cause;
                }
            }

            @Override
            public AdmissionGate gate() {
                return template.gate();
            }
        };
    }

    @Test
    @DisplayName("l. REQUIRES_NEW inside the admitted region is misuse; no second connection, the admitted transaction rolls back")
    void requiresNewInsideTheAdmittedRegionIsMisuse() throws Exception {
        HikariDataSource pool = pool(3);
        DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(pool);
        BulkheadTemplate template = new BulkheadTemplate(new AdmissionGate("orders", GateConfig.defaults()),
                transactionManager);
        TransactionTemplate requiresNew = new TransactionTemplate(transactionManager);
        requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);

        Throwable thrown = catchThrowable(() -> template.executeWithoutResult(status -> {
            try {
                insert(DataSourceUtils.getConnection(pool), "l-requires-new-outer");
            } catch (SQLException e) {
                throw new UncheckedSqlException(e);
            }
            try {
                requiresNew.executeWithoutResult(inner -> {
                    throw new AssertionError("the inner transaction must not begin");
                });
            } finally {
                assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("no second connection").isEqualTo(1);
            }
        }));

        assertThat(thrown).isInstanceOfSatisfying(BulkheadMisuseException.class, misuse -> {
            assertThat(misuse.kind()).isEqualTo(MisuseKind.SUSPENDING_PROPAGATION);
            assertThat(misuse.workload()).isEqualTo("orders");
        });
        assertThat(rowExists("l-requires-new-outer")).isFalse();
        assertAllPermitsBack(template.gate());
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    }

    @Test
    @DisplayName("l. REQUIRED on a second transaction manager inside the admitted region is legal: it suspends nothing of ours")
    void requiredOnASecondTransactionManagerInsideTheAdmittedRegionIsLegal() throws Exception {
        HikariDataSource pool = pool(2);
        HikariDataSource otherPool = pool(2);
        BulkheadTemplate template = new BulkheadTemplate(new AdmissionGate("orders", GateConfig.defaults()),
                new DataSourceTransactionManager(pool));
        TransactionTemplate other = new TransactionTemplate(new DataSourceTransactionManager(otherPool));

        template.executeWithoutResult(status -> {
            try {
                insert(DataSourceUtils.getConnection(pool), "l-first-manager");
                other.executeWithoutResult(inner -> {
                    try {
                        insert(DataSourceUtils.getConnection(otherPool), "l-second-manager");
                    } catch (SQLException e) {
                        throw new UncheckedSqlException(e);
                    }
                });
                // The admitted transaction is intact after the other manager's transaction ended.
                insert(DataSourceUtils.getConnection(pool), "l-first-manager-again");
            } catch (SQLException e) {
                throw new UncheckedSqlException(e);
            }
        });

        assertThat(rowExists("l-first-manager")).isTrue();
        assertThat(rowExists("l-second-manager")).isTrue();
        assertThat(rowExists("l-first-manager-again")).isTrue();
        assertAllPermitsBack(template.gate());
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
        assertThat(otherPool.getHikariPoolMXBean().getActiveConnections()).isZero();
    }

    @Test
    @DisplayName("deadline: what remains after the queue wait becomes the Spring transaction's timeout")
    void remainingDeadlineBecomesTheTransactionTimeout() {
        HikariDataSource pool = pool(2);
        BulkheadTemplate template = new BulkheadTemplate(new AdmissionGate("orders", GateConfig.defaults()),
                new DataSourceTransactionManager(pool), new DefaultTransactionDefinition(),
                TransactionTimeouts.of(null, null, Duration.ofSeconds(30)), pool);

        long entered = System.nanoTime();
        long[] timeToLiveAndElapsed = template.execute(Duration.ofSeconds(20), status -> {
            ConnectionHolder holder = (ConnectionHolder) TransactionSynchronizationManager.getResource(pool);
            return new long[] {holder.getTimeToLiveInMillis(), System.nanoTime() - entered};
        });
        BulkheadTemplate withoutItsOwnDeadline = new BulkheadTemplate(new AdmissionGate("reports",
                GateConfig.defaults()), new DataSourceTransactionManager(pool), new DefaultTransactionDefinition(),
                TransactionTimeouts.of(Duration.ofMinutes(1), null, null), pool);
        long longest = withoutItsOwnDeadline.execute(Duration.ofNanos(Long.MAX_VALUE), status ->
                ((ConnectionHolder) TransactionSynchronizationManager.getResource(pool)).getTimeToLiveInMillis());

        // The timeout is what was left of the budget when the transaction began: 20 s, less at most the time that
        // passed from entering until it was read (and a millisecond of rounding).
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(timeToLiveAndElapsed[1]) + 1;
        assertThat(timeToLiveAndElapsed[0]).as("the per-call deadline, less what has passed")
                .isBetween(20_000 - elapsedMillis - 1, 20_000L);
        assertThat(longest).as("the longest deadline, never wrapped to a short one")
                .isGreaterThan(TimeUnit.DAYS.toMillis(365));
    }

    @ParameterizedTest(name = "statement-timeout {0}, deadline {1}: a deadline ran out? {2}")
    @CsvSource({
            "PT0.1S, PT60S, false", // the application's own hard limit ends the statement with budget to spare
            ", PT0.3S, true", // the deadline's remainder caps statement_timeout and ends the statement
            "PT60S, PT0.3S, true"})
    @DisplayName("deadline: a timeout once the deadline is spent is DeadlineExceededException; the application's own statement timeout stays itself")
    void aTimeoutAfterTheDeadlineIsSpentIsDeadlineExceeded(Duration statementTimeout, Duration deadline,
                                                            boolean deadlineRanOut) {
        HikariDataSource pool = pool(1);
        BulkheadTemplate template = new BulkheadTemplate(new AdmissionGate("orders", GateConfig.defaults()),
                new DataSourceTransactionManager(pool), new DefaultTransactionDefinition(),
                TransactionTimeouts.of(statementTimeout, null, deadline), pool);

        Throwable thrown = catchThrowable(() -> template.executeWithoutResult(status ->
                new JdbcTemplate(pool).execute("SELECT pg_sleep(5)")));

        assertThat(sqlExceptionIn(thrown).getSQLState()).as("query_canceled, either way").isEqualTo("57014");
        assertThat(thrown instanceof DeadlineExceededException).isEqualTo(deadlineRanOut);
        if (thrown instanceof DeadlineExceededException exceeded) {
            assertThat(exceeded.workload()).isEqualTo("orders");
        }
        assertAllPermitsBack(template.gate());
    }

    /** A checked SQL failure carried through Spring's unchecked callback. */
    static final class UncheckedSqlException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UncheckedSqlException(SQLException cause) {
            super(cause);
        }

        @Override
        public SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }
}
