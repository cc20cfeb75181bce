package dev.dbbulkhead.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.metrics.BulkheadMeterBinder;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * The {@code db.bulkhead.*} meters after real operations on PostgreSQL: each test gets a registry of its own, so
 * every count is exact.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class BulkheadMetricsTests {

    private static final Set<String> SPECIFIED_METERS = Set.of("db.bulkhead.admitted", "db.bulkhead.rejected",
            "db.bulkhead.queue.wait", "db.bulkhead.execution", "db.bulkhead.active", "db.bulkhead.waiting",
            "db.bulkhead.limit", "db.bulkhead.queue.shed", "db.bulkhead.queue.standing", "db.bulkhead.transaction",
            "db.bulkhead.lock.failures");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    BulkheadMetricsAutoConfiguration.class))
            .withPropertyValues(
                    // B = 1 with one queue place and a wait no test outlasts: a second operation waits, a third is full.
                    "db.bulkhead.workloads.orders.max-concurrent=1", "db.bulkhead.workloads.orders.max-queued=1",
                    "db.bulkhead.workloads.orders.queue-wait=1h",
                    // One queue place and no wait: a second operation gives up at once.
                    "db.bulkhead.workloads.reports.max-concurrent=1", "db.bulkhead.workloads.reports.max-queued=1",
                    "db.bulkhead.workloads.reports.queue-wait=0s",
                    // Short, so that a lock wait a test provokes ends soon; the lock is held until it has.
                    "db.bulkhead.workloads.orders.lock-timeout=100ms",
                    // A data source that refuses every connection: the transaction cannot begin.
                    "db.bulkhead.workloads.unreachable.data-source=unreachableDataSource")
            // Not a candidate for injection, so Boot's own data source is still configured as the primary one.
            .withBean("unreachableDataSource", DataSource.class,
                    () -> new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/unreachable"),
                    definition -> definition.setAutowireCandidate(false));

    private final MeterRegistry meters = new SimpleMeterRegistry();

    private ApplicationContextRunner withMeterRegistry() {
        return runner.withBean(MeterRegistry.class, () -> meters);
    }

    @Test
    void fullTimeoutAndInterruptedRejectionsAreCountedApartAndEveryWaitIsTimed() {
        withMeterRegistry().run(context -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            BulkheadTemplate orders = registry.template("orders");
            AtomicReference<RejectionReason> waiterRejected = new AtomicReference<>();
            try (HeldOperations running = HeldOperations.hold(orders, 1)) {
                Thread waiter = Thread.ofVirtual().start(() -> waiterRejected.set(catchThrowableOfType(
                        BulkheadRejectedException.class, () -> orders.execute(status -> 1)).reason()));
                Await.until("the second operation parked in the queue", () -> orders.gate().queueLength() == 1);

                assertThat(gauge("db.bulkhead.active", "orders")).isEqualTo(1);
                assertThat(gauge("db.bulkhead.waiting", "orders")).isEqualTo(1);
                assertThat(reasonOf(() -> orders.execute(status -> 1))).isEqualTo(RejectionReason.ADMISSION_FULL);

                waiter.interrupt();
                waiter.join();
                assertThat(running.failures).isEmpty();
            }
            assertThat(waiterRejected).hasValue(RejectionReason.INTERRUPTED);

            BulkheadTemplate reports = registry.template("reports");
            try (HeldOperations running = HeldOperations.hold(reports, 1)) {
                assertThat(reasonOf(() -> reports.execute(status -> 1))).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            }

            assertThat(counter("db.bulkhead.rejected", "orders", "reason", "full")).isEqualTo(1);
            assertThat(counter("db.bulkhead.rejected", "orders", "reason", "interrupted")).isEqualTo(1);
            assertThat(counter("db.bulkhead.rejected", "orders", "reason", "timeout")).isZero();
            assertThat(counter("db.bulkhead.rejected", "reports", "reason", "timeout")).isEqualTo(1);
            assertThat(counter("db.bulkhead.rejected", "reports", "reason", "full")).isZero();
            assertThat(counter("db.bulkhead.admitted", "orders")).isEqualTo(1);
            assertThat(counter("db.bulkhead.admitted", "reports")).isEqualTo(1);
            // Timed: every admitted operation and every one that waited and gave up; a full gate let nothing wait.
            assertThat(meters.get("db.bulkhead.queue.wait").tag("workload", "orders").timer().count()).isEqualTo(2);
            assertThat(meters.get("db.bulkhead.queue.wait").tag("workload", "reports").timer().count()).isEqualTo(2);
            assertThat(executions("orders", "committed")).isEqualTo(1);
            for (String gauge : List.of("db.bulkhead.active", "db.bulkhead.waiting")) {
                assertThat(gauge(gauge, "orders")).as(gauge + " afterwards").isZero();
                assertThat(gauge(gauge, "reports")).as(gauge + " afterwards").isZero();
            }
        });
    }

    @Test
    void aCallerInterruptedBeforeItEntersIsCountedAsInterruptedWithNoQueueWait() {
        withMeterRegistry().run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

            Thread.currentThread().interrupt();
            RejectionReason reason;
            try {
                reason = reasonOf(() -> orders.execute(status -> 1));
            } finally {
                Thread.interrupted();
            }

            assertThat(reason).isEqualTo(RejectionReason.INTERRUPTED);
            assertThat(counter("db.bulkhead.rejected", "orders", "reason", "interrupted")).isEqualTo(1);
            assertThat(meters.get("db.bulkhead.queue.wait").tag("workload", "orders").timer().count())
                    .as("it was never admitted, so it never waited").isZero();
        });
    }

    @Test
    void executionsAndTheirTransactionsAreTimedByHowTheyEnded() {
        withMeterRegistry().run(context -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            BulkheadTemplate orders = registry.template("orders");

            orders.execute(status -> 1);
            orders.executeWithoutResult(status -> status.setRollbackOnly());
            catchThrowableOfType(IllegalStateException.class, () -> orders.executeWithoutResult(status -> {
                throw new IllegalStateException("work failed");
            }));
            catchThrowableOfType(CannotCreateTransactionException.class,
                    () -> registry.template("unreachable").execute(status -> 1));

            assertThat(executions("orders", "committed")).isEqualTo(1);
            assertThat(executions("orders", "rolled_back")).isEqualTo(2);
            assertThat(executions("orders", "failed")).isZero();
            assertThat(executions("orders", "unknown")).isZero();
            assertThat(executions("unreachable", "failed")).isEqualTo(1);
            assertThat(counter("db.bulkhead.admitted", "orders")).isEqualTo(3);

            assertThat(transaction("orders", "committed").count()).isEqualTo(1);
            assertThat(transaction("orders", "rolled_back").count()).isEqualTo(2);
            assertThat(transaction("unreachable", "failed").count()).as("no connection, so no transaction").isZero();
            for (String outcome : List.of("committed", "rolled_back")) {
                // Each transaction runs inside the time its operation held the permit, pool wait and cleanup around it.
                assertThat(transaction("orders", outcome).totalTime(TimeUnit.NANOSECONDS)).as(outcome)
                        .isLessThanOrEqualTo(execution("orders", outcome).totalTime(TimeUnit.NANOSECONDS));
            }
            assertThat(counter("db.bulkhead.lock.failures", "orders", "kind", "timeout")).isZero();
        });
    }

    @Test
    void aLockWaitPastTheLockTimeoutIsCountedAsALockFailureOfItsWorkload() {
        SharedDatabase.DATABASE.execute("CREATE TABLE IF NOT EXISTS metered_lock (id int PRIMARY KEY, n int)",
                "INSERT INTO metered_lock VALUES (1, 0) ON CONFLICT DO NOTHING");
        withMeterRegistry().run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));

            Throwable thrown;
            // The row stays locked until the operation has failed: its wait can only end by the lock timeout.
            try (Connection holder = SharedDatabase.DATABASE.connect(); Statement lock = holder.createStatement()) {
                holder.setAutoCommit(false);
                lock.execute("SELECT n FROM metered_lock WHERE id = 1 FOR UPDATE");
                thrown = catchThrowable(() -> orders.execute(
                        status -> jdbc.update("UPDATE metered_lock SET n = n + 1 WHERE id = 1")));
                holder.rollback();
            }

            // JdbcTemplate has no category for it: an UncategorizedSQLException whose cause says lock_not_available.
            assertThat(thrown).rootCause().isInstanceOfSatisfying(SQLException.class,
                    sql -> assertThat(sql.getSQLState()).isEqualTo("55P03"));
            assertThat(counter("db.bulkhead.lock.failures", "orders", "kind", "timeout")).isEqualTo(1);
            assertThat(counter("db.bulkhead.lock.failures", "orders", "kind", "deadlock")).isZero();
            assertThat(transaction("orders", "rolled_back").count()).isEqualTo(1);

            orders.execute(status -> jdbc.update("UPDATE metered_lock SET n = n + 1 WHERE id = 1"));

            assertThat(counter("db.bulkhead.lock.failures", "orders", "kind", "timeout"))
                    .as("a lock wait that ended in time is no failure").isEqualTo(1);
        });
    }

    @Test
    void exactlyTheSpecifiedMetersEachDescribedAndTaggedWithItsWorkload() {
        withMeterRegistry().run(context -> {
            List<Meter> bulkheadMeters = meters.getMeters().stream()
                    .filter(meter -> meter.getId().getName().startsWith("db.bulkhead")).toList();
            assertThat(bulkheadMeters.stream().map(meter -> meter.getId().getName()).collect(Collectors.toSet()))
                    .isEqualTo(SPECIFIED_METERS);
            assertThat(bulkheadMeters).allSatisfy(meter -> {
                assertThat(meter.getId().getDescription()).as(meter.getId().getName()).isNotBlank();
                assertThat(meter.getId().getTag("workload")).isIn("orders", "reports", "unreachable");
            });
            // Per workload: admitted, 9 rejected, queue wait, 4 executions, active, waiting, 2 limits, shed, standing,
            // 4 transactions, 2 lock failures.
            assertThat(bulkheadMeters).filteredOn(meter -> "orders".equals(meter.getId().getTag("workload")))
                    .hasSize(27);
            assertThat(meters.get("db.bulkhead.rejected").tag("workload", "orders").counters())
                    .extracting(counter -> counter.getId().getTag("reason"))
                    .containsExactlyInAnyOrder("full", "timeout", "interrupted", "insufficient_time", "criticality",
                            "fair_share", "pushed_out", "borrow_refused", "shutting_down");
        });
    }

    @Test
    void theLimitGaugesFollowAResize() {
        withMeterRegistry().run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            assertThat(limit("orders", "concurrent")).isEqualTo(1);
            assertThat(limit("orders", "queued")).isEqualTo(1);

            orders.resize(4, 6);

            assertThat(limit("orders", "concurrent")).isEqualTo(4);
            assertThat(limit("orders", "queued")).isEqualTo(6);
        });
    }

    @Test
    void aWorkloadsMetersAreRemovedWhenItsBulkheadIsClosed() {
        AtomicReference<AdmissionGate> gate = new AtomicReference<>();
        withMeterRegistry().run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            orders.execute(status -> 1);
            gate.set(orders.gate());
            assertThat(meters.find("db.bulkhead.admitted").meters()).isNotEmpty();
        });

        assertThat(meters.getMeters()).noneMatch(meter -> meter.getId().getName().startsWith("db.bulkhead"));
        assertThat(gate.get().active()).isZero();
    }

    @Test
    void withoutAMeterRegistryNothingIsBound() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadMeterBinder.class));
        withMeterRegistry().withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).doesNotHaveBean(BulkheadMeterBinder.class));
    }

    @Test
    void aBinderOfTheUsersWins() {
        BulkheadMeterBinder own = new BulkheadMeterBinder(new SimpleMeterRegistry());
        withMeterRegistry().withBean(BulkheadMeterBinder.class, () -> own)
                .run(context -> {
                    assertThat(context).getBean(BulkheadMeterBinder.class).isSameAs(own);
                    assertThat(meters.find("db.bulkhead.admitted").meters()).isEmpty();
                });
    }

    private double gauge(String name, String workload) {
        return meters.get(name).tag("workload", workload).gauge().value();
    }

    private double limit(String workload, String kind) {
        return meters.get("db.bulkhead.limit").tags("workload", workload, "kind", kind).gauge().value();
    }

    private double counter(String name, String workload, String... tags) {
        return meters.get(name).tag("workload", workload).tags(tags).counter().count();
    }

    private long executions(String workload, String outcome) {
        return execution(workload, outcome).count();
    }

    private Timer execution(String workload, String outcome) {
        return meters.get("db.bulkhead.execution").tags("workload", workload, "outcome", outcome).timer();
    }

    private Timer transaction(String workload, String outcome) {
        return meters.get("db.bulkhead.transaction").tags("workload", workload, "outcome", outcome).timer();
    }

    private static RejectionReason reasonOf(Runnable call) {
        return catchThrowableOfType(BulkheadRejectedException.class, call::run).reason();
    }
}
