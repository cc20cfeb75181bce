package dev.dbbulkhead.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.DataSourceDecorator;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.testing.HeldPool;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * The wait for a HikariCP connection within an operation's deadline, on real PostgreSQL, with every connection held
 * by a plain thread outside the gates: which waits the deadline bounds, which stay the pool's own, and a pool that is
 * not started yet or closed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class DeadlinePoolWaitTests {

    static TestDatabase database;

    private HikariDataSource pool;
    /** The pool as the watch for ungated work decorates it: what the transactions use. */
    private DataSource gated;

    @BeforeAll
    static void createSchema() {
        database = PostgresFixture.freshSchema();
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void aPoolNotStartedYetStartsThePlainWayThenItsWaitEndsWithTheDeadlineAndClosedItRefusesAsHikariCpDoes()
            throws Exception {
        HikariConfig config = config("pool-wait-lazy", 30_000);
        pool = new HikariDataSource();
        config.copyStateTo(pool);
        assertThat(pool.getHikariPoolMXBean()).as("a pool that starts on its first borrow").isNull();
        BulkheadTemplate orders = template(pool);
        JdbcTemplate jdbc = new JdbcTemplate(gated);

        // A deadline shorter than the connection timeout, on a pool with nothing to bound yet: it starts it.
        Integer one = orders.execute(Duration.ofSeconds(10), status -> jdbc.queryForObject("SELECT 1", Integer.class));
        assertThat(one).isEqualTo(1);

        HeldPool held = HeldPool.holdEvery(pool);
        DeadlineExceededException exceeded = catchThrowableOfType(DeadlineExceededException.class,
                () -> orders.execute(Duration.ofMillis(300), status -> jdbc.queryForObject("SELECT 1", Integer.class)));

        assertDeadlineEndedTheWait(exceeded, 300, 30_000);
        held.assertWholeThenRelease();

        pool.close();
        CannotCreateTransactionException closed = catchThrowableOfType(CannotCreateTransactionException.class,
                () -> orders.execute(Duration.ofSeconds(10), status -> 1));
        assertThat(closed).isNotInstanceOf(DeadlineExceededException.class)
                .cause().hasMessageContaining("has been closed");
    }

    @Test
    void onlyADeadlineShorterThanThePoolsTimeoutBoundsTheWaitOtherOperationsWaitThePoolsOwnTimeout() throws Exception {
        pool = new HikariDataSource(config("pool-wait-own", 1_000));
        BulkheadTemplate orders = template(pool);

        HeldPool held = HeldPool.holdEvery(pool);
        CannotCreateTransactionException noDeadline = catchThrowableOfType(CannotCreateTransactionException.class,
                () -> orders.execute(status -> 1));
        CannotCreateTransactionException longerDeadline = catchThrowableOfType(
                CannotCreateTransactionException.class, () -> orders.execute(Duration.ofMinutes(1), status -> 1));
        DeadlineExceededException shorterDeadline = catchThrowableOfType(DeadlineExceededException.class,
                () -> orders.execute(Duration.ofMillis(300), status -> 1));

        for (CannotCreateTransactionException own : new CannotCreateTransactionException[] {noDeadline,
                longerDeadline}) {
            assertThat(own).isNotInstanceOf(DeadlineExceededException.class);
            assertThat(own.getCause()).as("HikariCP's own timeout, as the plain getConnection() throws it")
                    .isExactlyInstanceOf(SQLTransientConnectionException.class);
            assertThat(HeldPool.reportedWaitMillis(own).orElseThrow()).as("the pool's whole connection timeout")
                    .isGreaterThanOrEqualTo(1_000);
        }
        assertDeadlineEndedTheWait(shorterDeadline, 300, 1_000);
        held.assertWholeThenRelease();
    }

    /**
     * {@code exceeded} says the deadline ended the pool wait: HikariCP's timeout in its causes, under the bound the
     * deadline set, which is no more than the budget and less than the pool's connection timeout.
     */
    static void assertDeadlineEndedTheWait(DeadlineExceededException exceeded, long budgetMillis,
                                           long connectionTimeoutMillis) {
        assertThat(exceeded).isNotNull().hasMessageContaining("waiting for a connection");
        assertThat(exceeded.workload()).isEqualTo("orders");
        PoolWaitOutOfDeadline ended = null;
        for (Throwable cause = exceeded; cause != null; cause = cause.getCause()) {
            if (cause instanceof PoolWaitOutOfDeadline out) {
                ended = out;
            }
        }
        assertThat((Throwable) ended).as("the pool wait the deadline bounded, in the causes").isNotNull();
        assertThat(ended.getCause()).as("HikariCP's own timeout").isExactlyInstanceOf(SQLTransientConnectionException.class)
                .hasMessageContaining("Connection is not available, request timed out after");
        assertThat(HeldPool.deadlineBoundMillis(exceeded).orElseThrow()).as("the bound: what was left of the budget")
                .isPositive().isLessThanOrEqualTo(budgetMillis).isLessThan(connectionTimeoutMillis);
    }

    private static HikariConfig config(String name, long connectionTimeoutMillis) {
        HikariConfig config = database.poolConfig(2, name);
        config.setConnectionTimeout(connectionTimeoutMillis);
        // The pool's sessions on the server are counted by it.
        config.addDataSourceProperty("ApplicationName", name);
        return config;
    }

    /** Workload {@code orders}, B = 1, on {@code pool} as the watch for ungated work decorates it. */
    private BulkheadTemplate template(HikariDataSource pool) {
        gated = new DataSourceDecorator(pool, DeadlinePoolWait.forPool(pool)) {
            @Override
            protected void beforeConnection() {
            }
        };
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).build());
        return new BulkheadTemplate(gate, new DataSourceTransactionManager(gated), new DefaultTransactionDefinition(),
                TransactionTimeouts.NONE, gated);
    }
}
