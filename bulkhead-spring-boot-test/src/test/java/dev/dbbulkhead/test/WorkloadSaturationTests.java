package dev.dbbulkhead.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/**
 * Saturating workloads of a real application on PostgreSQL: every operation refused at once while saturated, every
 * place back once closed, all workloads or none. orders: B=2 Q=1 waiting 5 minutes (a caller that queued instead of
 * being refused would hang the test, not pass it); reports: B=1 Q=0.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class WorkloadSaturationTests {

    private static final TestDatabase DATABASE = PostgresFixture.freshSchema();

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    BulkheadAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + DATABASE.server().jdbcUrl(),
                    "spring.datasource.username=" + DATABASE.server().username(),
                    "spring.datasource.password=" + DATABASE.server().password(),
                    "db.bulkhead.workloads.orders.max-concurrent=2", "db.bulkhead.workloads.orders.max-queued=1",
                    "db.bulkhead.workloads.orders.queue-wait=5m", "db.bulkhead.workloads.reports.max-concurrent=1");

    @Test
    void aSaturatedWorkloadRefusesEveryOperationAtOnceWithoutTakingAConnectionAndRunsThemOnceClosed() {
        run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            HikariDataSource pool = context.getBean(HikariDataSource.class);
            orders.executeWithoutResult(status -> { }); // the pool started, so that its count below says something

            try (WorkloadSaturation saturated = WorkloadSaturation.of(context.getBean(BulkheadRegistry.class),
                    "orders")) {
                assertThat(saturated.workloads()).containsExactly("orders");
                for (int caller = 0; caller < 4; caller++) {
                    BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class,
                            () -> orders.execute(status -> 42));
                    assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
                }
                assertThat(orders.gate().active()).isEqualTo(2);
                assertThat(orders.gate().waiting()).isEqualTo(1);
                assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
            }

            Integer answer = orders.execute(status -> 42);
            assertThat(answer).isEqualTo(42);
            assertIdle(orders.gate());
        });
    }

    @Test
    void closingTwiceGivesThePlacesBackOnce() {
        run(context -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            WorkloadSaturation saturated = WorkloadSaturation.of(registry, "orders", "reports");

            saturated.close();
            saturated.close();

            assertThat(saturated.isReleased()).isTrue();
            assertIdle(registry.template("orders").gate());
            assertIdle(registry.template("reports").gate());
        });
    }

    @Test
    void aWorkloadInUseIsNotSaturatedAndNeitherAreTheOthersNamedWithIt() {
        run(context -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread report = Thread.ofVirtual().start(() -> registry.template("reports").executeWithoutResult(status -> {
                running.countDown();
                awaitQuietly(release);
            }));
            running.await();
            try {
                assertThatIllegalStateException().isThrownBy(() -> WorkloadSaturation.of(registry, "orders", "reports"))
                        .withMessageContaining("Bulkhead 'reports' cannot be saturated while it is in use (1 running");
                assertIdle(registry.template("orders").gate());
            } finally {
                release.countDown();
                report.join();
            }
            assertIdle(registry.template("reports").gate());
        });
    }

    @Test
    void anUnknownWorkloadIsRefusedNamingTheConfiguredOnesAndNothingStaysTaken() {
        run(context -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);

            assertThatIllegalArgumentException().isThrownBy(() -> WorkloadSaturation.of(registry, "orders", "order"))
                    .withMessage("No bulkhead workload named 'order'; configured: [orders, reports]");
            assertThatIllegalArgumentException().isThrownBy(() -> WorkloadSaturation.of(registry, "orders", "orders"))
                    .withMessage("Workload 'orders' is named twice");
            assertIdle(registry.template("orders").gate());
        });
    }

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        application.run(context -> {
            assertThat(context).hasNotFailed();
            test.accept(context);
        });
    }

    private static void assertIdle(AdmissionGate gate) {
        assertThat(gate.active()).as("running in %s", gate.workload()).isZero();
        assertThat(gate.waiting()).as("waiting in %s", gate.workload()).isZero();
        assertThat(gate.availableAdmissionPermits()).isEqualTo(gate.config().maxAdmitted());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
