package dev.dbbulkhead.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateSaturation;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/** Retries of a template on real PostgreSQL: a deadlock retried within the budget, and what is never retried. */
@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class TemplateRetriesTests {

    static TestDatabase database;

    private HikariDataSource pool;

    @BeforeAll
    static void createSchema() {
        database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL)",
                "INSERT INTO account VALUES (1, 0), (2, 0)");
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void aDeadlockBetweenTwoWorkloadsTransactionsIsRetriedOnceWithinTheBudgetAndBothSucceed() throws Exception {
        pool = database.pool(4);
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        RetryBudget budget = new RetryBudget(RetryBudgetConfig.defaults());
        BulkheadTemplate orders = template("orders").withRetries(2, budget);
        BulkheadTemplate reports = template("reports").withRetries(2, budget);
        CyclicBarrier bothHoldTheirFirstRow = new CyclicBarrier(2);
        AtomicInteger attempts = new AtomicInteger();

        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Integer> first = callers.submit(() -> orders.execute(status ->
                    Deadlocks.transfer(jdbc, "account", 1, 2, attempts, bothHoldTheirFirstRow)));
            Future<Integer> second = callers.submit(() -> reports.execute(status ->
                    Deadlocks.transfer(jdbc, "account", 2, 1, attempts, bothHoldTheirFirstRow)));

            assertThat(first.get()).isEqualTo(1);
            assertThat(second.get()).isEqualTo(1);
        }
        assertThat(attempts).as("two first attempts and the one retry of the deadlock's victim").hasValue(3);
        assertThat(jdbc.queryForObject("SELECT sum(balance) FROM account", Integer.class)).isZero();
    }

    @Test
    void aRefusalOfAFullGateIsRetriedOnlyWhileTheBudgetGrantsIt() {
        pool = database.pool(1);
        RetryBudget budget = new RetryBudget(RetryBudgetConfig.builder().percentCanRetry(0).minRetriesPerSecond(0)
                .build());
        BulkheadTemplate orders = template("orders").withRetries(5, budget);
        AtomicInteger runs = new AtomicInteger();

        try (GateSaturation full = orders.gate().saturate()) {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class,
                    () -> orders.execute(status -> runs.incrementAndGet()));
            assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
        }
        assertThat(runs).as("a budget of nothing grants no retry, and the gate let nothing run").hasValue(0);
        assertThat(orders.gate().active()).isZero();
    }

    @Test
    void aFailureThatIsNotSafeToRetryIsThrownAfterItsOneAttempt() {
        pool = database.pool(1);
        BulkheadTemplate orders = template("orders").withRetries(5, new RetryBudget(RetryBudgetConfig.defaults()));
        AtomicInteger runs = new AtomicInteger();

        IllegalStateException failure = catchThrowableOfType(IllegalStateException.class,
                () -> orders.execute(status -> {
                    runs.incrementAndGet();
                    throw new IllegalStateException("the work's own failure");
                }));

        assertThat(failure).hasMessage("the work's own failure");
        assertThat(runs).hasValue(1);
    }

    private BulkheadTemplate template(String workload) {
        AdmissionGate gate = new AdmissionGate(workload, GateConfig.builder().maxConcurrent(1).build());
        return new BulkheadTemplate(gate, new DataSourceTransactionManager(pool), new DefaultTransactionDefinition(),
                TransactionTimeouts.NONE, pool);
    }
}
