package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.annotation.DbBulkheadRetryPredicate;
import dev.dbbulkhead.autoconfigure.metrics.BulkheadMetricsAutoConfiguration;
import dev.dbbulkhead.gate.GateSaturation;
import dev.dbbulkhead.metrics.RetryMeterBinder;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.Deadlocks;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntBinaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

/**
 * A workload's retries in an application on real PostgreSQL: the {@code @DbBulkhead} method retried by its workload's
 * own {@code retry.max-attempts}, and by Spring's {@code @Retryable} asking the workload's budget through
 * {@link DbBulkheadRetryPredicate}; each counted in {@code db.bulkhead.retries}.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class WorkloadRetriesApplicationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, BulkheadAutoConfiguration.class,
                    BulkheadMetricsAutoConfiguration.class))
            .withUserConfiguration(RetryingApplication.class)
            .withPropertyValues("db.bulkhead.workloads.orders.retry.max-attempts=2",
                    "db.bulkhead.workloads.reports.retry.max-attempts=2",
                    "db.bulkhead.workloads.springy.max-concurrent=2",
                    // No budget at all: not one retry, whatever @Retryable allows.
                    "db.bulkhead.workloads.unfunded.max-concurrent=1",
                    "db.bulkhead.workloads.unfunded.retry.percent-can-retry=0",
                    "db.bulkhead.workloads.unfunded.retry.min-retries-per-second=0",
                    // A floor of one retry a second over the default 10 s window: ten retries to grant.
                    "db.bulkhead.workloads.floored.max-concurrent=1",
                    "db.bulkhead.workloads.floored.retry.percent-can-retry=0",
                    "db.bulkhead.workloads.floored.retry.min-retries-per-second=1");

    @BeforeAll
    static void createAccounts() {
        SharedDatabase.DATABASE.execute("CREATE TABLE IF NOT EXISTS retried_account (id int PRIMARY KEY,"
                + " balance int NOT NULL)", "INSERT INTO retried_account VALUES (1, 0), (2, 0) ON CONFLICT DO NOTHING");
    }

    @Test
    void aDeadlockBetweenTwoWorkloadsAnnotatedMethodsIsRetriedOnceByTheWorkloadAndBothCommit() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);

            deadlock(transfers::orders, transfers::reports);

            assertThat(transfers.attempts()).as("two first attempts and the one retry of the deadlock's victim")
                    .isEqualTo(3);
            assertThat(retries(context, "orders", "granted") + retries(context, "reports", "granted")).isOne();
            assertThat(retries(context, "orders", "refused") + retries(context, "reports", "refused")).isZero();
        });
    }

    @Test
    void springsRetryableOnTheAnnotatedMethodRetriesTheDeadlockInANewAdmittedTransaction() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);

            deadlock(transfers::springy, transfers::springy);

            assertThat(transfers.attempts()).as("two first attempts and the one retry of the deadlock's victim")
                    .isEqualTo(3);
            assertThat(retries(context, "springy", "granted")).isOne();
            assertThat(context.getBean(BulkheadRegistry.class).template("springy").gate().active()).isZero();
        });
    }

    @Test
    void springsRetryableRetriesNothingOnceTheWorkloadsBudgetIsSpent() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);

            BulkheadRejectedException refused;
            try (GateSaturation full = registry.template("unfunded").gate().saturate()) {
                refused = catchThrowableOfType(BulkheadRejectedException.class, transfers::unfunded);
            }

            assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
            assertThat(retries(context, "unfunded", "refused")).as("asked once, refused once").isOne();
            assertThat(retries(context, "unfunded", "granted")).isZero();
            assertThat(transfers.attempts()).as("the gate let nothing run").isZero();
        });
    }

    @Test
    void springsRetryableRetriesARefusalOfTheGateWhileTheBudgetGrantsIt() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);

            try (GateSaturation full = registry.template("floored").gate().saturate()) {
                catchThrowableOfType(BulkheadRejectedException.class, transfers::floored);
            }

            // Spring asks the predicate before its own count stops the retries: three retries made, and a fourth
            // granted that is not, which errs on the side of fewer retries.
            assertThat(retries(context, "floored", "granted")).as("@Retryable's three retries, within the floor")
                    .isEqualTo(4);
            assertThat(retries(context, "floored", "refused")).isZero();
            assertThat(registry.template("floored").gate().active()).isZero();
        });
    }

    private static double retries(AssertableApplicationContext context, String workload, String outcome) {
        return context.getBean(MeterRegistry.class).get(RetryMeterBinder.RETRIES).tag("workload", workload)
                .tag("outcome", outcome).functionCounter().count();
    }

    /** Runs two transfers in opposite directions at once, so that they deadlock; both must then succeed. */
    private static void deadlock(IntBinaryOperator first, IntBinaryOperator second) throws Exception {
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Integer> one = callers.submit(() -> first.applyAsInt(1, 2));
            Future<Integer> other = callers.submit(() -> second.applyAsInt(2, 1));
            assertThat(one.get()).isOne();
            assertThat(other.get()).isOne();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableResilientMethods
    @Import(Transfers.class)
    static class RetryingApplication {
    }

    static class Transfers {

        private final AtomicInteger attempts = new AtomicInteger();
        private final CyclicBarrier bothHoldTheirFirstRow = new CyclicBarrier(2);
        private final JdbcTemplate jdbc;

        Transfers(DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        /** Attempts that ran, read through the proxy: its own fields are not the target's. */
        public int attempts() {
            return attempts.get();
        }

        @DbBulkhead("orders")
        public int orders(int from, int to) {
            return transfer(from, to);
        }

        @DbBulkhead("reports")
        public int reports(int from, int to) {
            return transfer(from, to);
        }

        @Retryable(predicate = DbBulkheadRetryPredicate.class, maxRetries = 1, delay = 1)
        @DbBulkhead("springy")
        public int springy(int from, int to) {
            return transfer(from, to);
        }

        @Retryable(predicate = DbBulkheadRetryPredicate.class, maxRetries = 5, delay = 1)
        @DbBulkhead("unfunded")
        public int unfunded() {
            return attempts.incrementAndGet();
        }

        @Retryable(predicate = DbBulkheadRetryPredicate.class, maxRetries = 3, delay = 1)
        @DbBulkhead("floored")
        public int floored() {
            return attempts.incrementAndGet();
        }

        private int transfer(int from, int to) {
            return Deadlocks.transfer(jdbc, "retried_account", from, to, attempts, bothHoldTheirFirstRow);
        }
    }
}
