package dev.dbbulkhead.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.testing.CommitFaults;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The verdict of a failed commit under {@link DataSourceTransactionManager}: what fails before the JDBC commit is
 * a known rollback that reaches the caller unchanged; only a JDBC commit that fails without the database's
 * verdict is unknown. The JPA counterparts are in the JPA test module.
 */
@DisplayName("BulkheadTemplate commit verdicts (DataSourceTransactionManager, real PostgreSQL)")
@Timeout(60)
class BulkheadTemplateCommitVerdictTests {

    static TestDatabase database;

    private final List<ExecutionOutcome> outcomes = new CopyOnWriteArrayList<>();
    private HikariDataSource pool;
    /** The data source of the template under test: the pool, or a wrapper of it. */
    private DataSource transactional;

    @BeforeAll
    static void createSchema() {
        database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE item (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)",
                "CREATE TABLE versioned (id int PRIMARY KEY, version int NOT NULL)",
                "INSERT INTO versioned VALUES (1, 0)");
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    @DisplayName("a throwing beforeCommit callback is a known rollback, and its own exception reaches the caller")
    void throwingBeforeCommitIsAKnownRollback() throws Exception {
        BulkheadTemplate template = template(pool(), TransactionTimeouts.NONE, new DefaultTransactionDefinition());
        IllegalStateException refusal = new IllegalStateException("refused by a beforeCommit listener");

        Throwable thrown = catchThrowable(() -> template.executeWithoutResult(status -> {
            insert("before-commit-refused");
            onBeforeCommit(readOnly -> {
                throw refusal;
            });
        }));

        assertThat(thrown).isSameAs(refusal);
        assertThat(outcomes).containsExactly(ExecutionOutcome.ROLLED_BACK);
        assertThat(rowExists("before-commit-refused")).isFalse();
        BulkheadConformanceTests.assertAllPermitsBack(template.gate());
    }

    @ParameterizedTest(name = "{0} in a beforeCommit callback: SQLState {2}, a known rollback")
    @CsvSource({
            "statement-timeout, SELECT pg_sleep(5), 57014",
            "lock-timeout, UPDATE versioned SET version = version WHERE id = 1, 55P03"})
    @DisplayName("our own statement and lock timeouts firing in a beforeCommit callback are known rollbacks")
    void ownTimeoutBeforeCommitIsAKnownRollback(String limit, String sql, String sqlState) throws Exception {
        TransactionTimeouts limits = limit.equals("statement-timeout")
                ? TransactionTimeouts.of(Duration.ofMillis(100), null, null)
                : TransactionTimeouts.of(null, Duration.ofMillis(100), null);
        HikariDataSource pool = pool();
        BulkheadTemplate template = template(pool, limits, new DefaultTransactionDefinition());
        JdbcTemplate jdbc = new JdbcTemplate(pool);

        Throwable thrown;
        try (Connection lockHolder = database.connect(); Statement lock = lockHolder.createStatement()) {
            lockHolder.setAutoCommit(false);
            lock.execute("SELECT version FROM versioned WHERE id = 1 FOR UPDATE");
            thrown = catchThrowable(() -> template.executeWithoutResult(status -> {
                insert("timed-out-before-commit-" + sqlState);
                onBeforeCommit(readOnly -> jdbc.execute(sql));
            }));
            lockHolder.rollback();
        }

        assertThat(thrown).isNotInstanceOf(CommitOutcomeUnknownException.class);
        assertThat(BulkheadConformanceTests.sqlExceptionIn(thrown).getSQLState()).isEqualTo(sqlState);
        assertThat(outcomes).containsExactly(ExecutionOutcome.ROLLED_BACK);
        assertThat(rowExists("timed-out-before-commit-" + sqlState)).isFalse();
    }

    @Test
    @DisplayName("an optimistic lock failure at commit keeps its type: a TransactionTemplate-style retry still matches it")
    void optimisticLockFailureBeforeCommitKeepsItsTypeForRetries() throws Exception {
        BulkheadTemplate template = template(pool(), TransactionTimeouts.NONE, new DefaultTransactionDefinition());
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        database.execute("UPDATE versioned SET version = 0 WHERE id = 1");
        int attempts = 0;
        int seenVersion = 0;
        while (true) {
            attempts++;
            int expected = seenVersion;
            try {
                template.executeWithoutResult(status -> {
                    if (expected == 0) {
                        // Another writer gets in between the read and this transaction's commit.
                        database.execute("UPDATE versioned SET version = 1 WHERE id = 1");
                    }
                    // Checked at commit, as an ORM checks @Version when it flushes.
                    onBeforeCommit(readOnly -> {
                        if (jdbc.update("UPDATE versioned SET version = version + 1 WHERE id = 1 AND version = ?",
                                expected) == 0) {
                            throw new OptimisticLockingFailureException("versioned 1 changed since version " + expected);
                        }
                    });
                });
                break;
            } catch (OptimisticLockingFailureException conflict) {
                seenVersion = jdbc.queryForObject("SELECT version FROM versioned WHERE id = 1", Integer.class);
            }
        }

        assertThat(attempts).isEqualTo(2);
        assertThat(outcomes).containsExactly(ExecutionOutcome.ROLLED_BACK, ExecutionOutcome.COMMITTED);
        assertThat(jdbc.queryForObject("SELECT version FROM versioned WHERE id = 1", Integer.class)).isEqualTo(2);
    }

    @ParameterizedTest(name = "the JDBC commit fails with SQLState {0}: {1}")
    @CsvSource({
            "40003, UNKNOWN", // statement completion unknown: no verdict, the write may have happened
            "40001, ROLLED_BACK"}) // serialization failure: the database's refusal
    @DisplayName("a failing JDBC commit is unknown unless the database gave a verdict; 40003 gives none")
    void failingJdbcCommitIsUnknownWithoutAVerdict(String sqlState, ExecutionOutcome outcome) throws Exception {
        CommitFaults faults = new CommitFaults(pool());
        BulkheadTemplate template = template(faults.dataSource(), TransactionTimeouts.NONE,
                new DefaultTransactionDefinition());
        faults.failNextCommit(sqlState);

        Throwable thrown = catchThrowable(() -> template.executeWithoutResult(status -> insert("commit-" + sqlState)));

        assertThat(thrown instanceof CommitOutcomeUnknownException).isEqualTo(outcome == ExecutionOutcome.UNKNOWN);
        assertThat(BulkheadConformanceTests.sqlExceptionIn(thrown).getSQLState()).isEqualTo(sqlState);
        assertThat(outcomes).containsExactly(outcome);
        assertThat(rowExists("commit-" + sqlState)).isFalse();
    }

    @Test
    @DisplayName("an afterCommit callback that throws leaves the verdict committed: the write happened")
    void throwingAfterCommitIsStillCommitted() throws Exception {
        BulkheadTemplate template = template(pool(), TransactionTimeouts.NONE, new DefaultTransactionDefinition());
        IllegalStateException afterCommitFailure = new IllegalStateException("after commit");

        Throwable thrown = catchThrowable(() -> template.executeWithoutResult(status -> {
            insert("after-commit-failed");
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    throw afterCommitFailure;
                }
            });
        }));

        assertThat(thrown).isSameAs(afterCommitFailure);
        assertThat(outcomes).containsExactly(ExecutionOutcome.COMMITTED);
        assertThat(rowExists("after-commit-failed")).isTrue();
    }

    @Test
    @DisplayName("a deadline never lengthens a shorter transaction timeout: transaction.timeout 2s with a 30s deadline")
    void deadlineNeverLengthensAShorterTransactionTimeout() {
        HikariDataSource pool = pool();
        DefaultTransactionDefinition twoSeconds = new DefaultTransactionDefinition();
        twoSeconds.setTimeout(2);
        BulkheadTemplate template = template(pool, TransactionTimeouts.of(null, null, Duration.ofSeconds(30)), twoSeconds);

        long timeToLive = template.execute(status -> {
            ConnectionHolder holder = (ConnectionHolder) TransactionSynchronizationManager.getResource(pool);
            return holder.getTimeToLiveInMillis();
        });

        assertThat(timeToLive).as("the transaction's own 2 s, not the deadline's 30 s").isPositive()
                .isLessThanOrEqualTo(2_000);
    }

    private BulkheadTemplate template(DataSource dataSource, TransactionTimeouts limits, TransactionDefinition definition) {
        GateListener recorder = new GateListener() {
            @Override
            public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
                outcomes.add(outcome);
            }
        };
        transactional = dataSource;
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(2).build(), recorder);
        return new BulkheadTemplate(gate, new DataSourceTransactionManager(dataSource), definition, limits, dataSource);
    }

    private HikariDataSource pool() {
        pool = database.pool(2);
        return pool;
    }

    /** Inserts on the connection of the transaction in progress. */
    private void insert(String name) {
        new JdbcTemplate(transactional).update("INSERT INTO item (name) VALUES (?)", name);
    }

    private static boolean rowExists(String name) throws SQLException {
        return BulkheadConformanceTests.rowExists(database, name);
    }

    private static void onBeforeCommit(Consumer<Boolean> callback) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                callback.accept(readOnly);
            }
        });
    }
}
