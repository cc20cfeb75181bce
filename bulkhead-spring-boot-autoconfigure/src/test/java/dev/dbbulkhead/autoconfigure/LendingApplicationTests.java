package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint.LendingDescriptor;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.LendingPool;
import dev.dbbulkhead.metrics.BulkheadMeterBinder;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Lending between two workloads of one DataSource on real PostgreSQL: {@code orders} (B = 2) lends, {@code reports}
 * (B = 1) borrows up to 2. Operations hold their connection inside an open transaction until their latch is counted
 * down, and the pool's busy sessions are counted from outside — in {@code pg_stat_activity} and by HikariCP — so that
 * the sum of the B (3) is checked where the connections are, not only in the gates.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class LendingApplicationTests {

    private static final String APPLICATION_NAME = "lending-tests";

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final ApplicationContextRunner runner = MeteredEndpointApplications.runner(meters)
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=6",
                    "spring.datasource.hikari.data-source-properties.ApplicationName=" + APPLICATION_NAME,
                    "db.bulkhead.workloads.orders.max-concurrent=2",
                    "db.bulkhead.workloads.reports.max-concurrent=1",
                    "db.bulkhead.workloads.reports.lending.borrow=2");

    private final List<HeldTransaction> holders = new ArrayList<>();

    @Test
    void whileTheLenderIsIdleTheBorrowerRunsItsBAndItsCeilingAtOnceAndNeverMore() {
        runner.run(context -> {
            try {
                BulkheadTemplate reports = template(context, "reports");
                hold(reports, 3);

                assertThat(busySessions(context)).as("busy sessions of the pool, from outside").isEqualTo(3);
                assertThat(refusal(reports)).as("its ceiling reached").isEqualTo(RejectionReason.ADMISSION_FULL);
                assertThat(reports.gate().borrowed()).isEqualTo(2);
                assertThat(meters.get(BulkheadMeterBinder.BORROWED).tag("workload", "reports").gauge().value())
                        .isEqualTo(2.0);
                assertThat(meters.find(BulkheadMeterBinder.BORROWED).tag("workload", "orders").gauge())
                        .as("only a borrower has borrowed places to show").isNull();
                BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
                // reports lends too (lending.lend defaults to true): its own place is on the ledger, in use.
                assertThat(endpoint.workload("reports").lending()).isEqualTo(new LendingDescriptor("primary", 2, 2,
                        true, 3, 3, false));
                assertThat(endpoint.workload("orders").lending()).isEqualTo(new LendingDescriptor("primary", 0, 0,
                        true, 3, 3, false));
                assertThat(endpoint.workload("reports").active()).as("borrowed places counted as active").isEqualTo(3);
            } finally {
                releaseAll();
            }
            assertThat(pool(context).inUse()).as("every ledger place back").isZero();
        });
    }

    @Test
    void whenTheLenderAsksTheBorrowerIsRefusedAndTheLenderGetsItsBAsBorrowedPlacesEnd() {
        runner.run(context -> {
            try {
                BulkheadTemplate reports = template(context, "reports");
                BulkheadTemplate orders = template(context, "orders");
                hold(reports, 3);
                HeldTransaction firstOwner = start(orders);
                HeldTransaction secondOwner = start(orders);
                while (!(pool(context).reclaiming() && orders.gate().active() == 2)) {
                    Thread.onSpinWait();
                }
                assertThat(firstOwner.decided() || secondOwner.decided()).as("they wait; nobody refuses them")
                        .isFalse();
                assertThat(refusal(reports)).as("its own place taken, the others' wanted back")
                        .isEqualTo(RejectionReason.ADMISSION_FULL);

                holders.get(2).release();
                awaitOneOf(firstOwner, secondOwner);
                assertThat(busySessions(context)).as("never above the sum of the B").isEqualTo(3);
                assertThat(refusal(reports)).as("a borrowed place came back: it goes to the owner still waiting")
                        .isEqualTo(RejectionReason.BORROW_REFUSED);

                holders.get(1).release();
                firstOwner.awaitRunning();
                secondOwner.awaitRunning();
                assertThat(busySessions(context)).as("the lender has its B, the borrower its own").isEqualTo(3);
                assertThat(reports.gate().borrowed()).isZero();
                assertThat(refusal(reports)).as("every lent place in use by its owner")
                        .isEqualTo(RejectionReason.BORROW_REFUSED);
            } finally {
                releaseAll();
            }
        });
    }

    @Test
    void aWorkloadWithFairSharesAndCriticalityThatBorrowsNextToALenderStarts() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.lending.lend=true",
                        "db.bulkhead.workloads.reports.fair-share.enabled=true",
                        "db.bulkhead.workloads.reports.criticality.critical-reserve=0.25")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BulkheadTemplate reports = template(context, "reports");
                    assertThat(reports.gate().config().admissionRules().fairShares()).isTrue();
                    assertThat(reports.gate().config().admissionRules().criticalReserve()).isEqualTo(0.25);
                    assertThat(reports.gate().config().lending().borrow()).isEqualTo(2);
                    assertThat(template(context, "orders").gate().config().lending().pool())
                            .as("lender and borrower in one pool").isSameAs(pool(context));
                    BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
                    assertThat(endpoint.workload("reports").lending()).isNotNull();
                    assertThat(endpoint.workload("reports").rules()).isNotNull();
                    String outcome = reports.execute(status -> "committed");
                    assertThat(outcome).as("an operation of the borrower runs").isEqualTo("committed");
                });
    }

    @Test
    void withoutABorrowerNoWorkloadTakesPartInLending() {
        new ApplicationContextRunner().with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                        "db.bulkhead.workloads.reports.lending.lend=true")
                .run(context -> {
                    assertThat(template(context, "orders").gate().config().lending().isNone()).isTrue();
                    assertThat(template(context, "reports").gate().config().lending().isNone()).isTrue();
                });
    }

    private void hold(BulkheadTemplate template, int operations) throws Exception {
        for (int i = 0; i < operations; i++) {
            start(template).awaitRunning();
        }
    }

    private HeldTransaction start(BulkheadTemplate template) {
        HeldTransaction holder = new HeldTransaction(template, null);
        holders.add(holder);
        return holder;
    }

    private void releaseAll() throws Exception {
        for (HeldTransaction holder : holders) {
            holder.release();
        }
        for (HeldTransaction holder : holders) {
            holder.ended.get(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitOneOf(HeldTransaction first, HeldTransaction second) {
        while (!first.running.isDone() && !second.running.isDone()) {
            Thread.onSpinWait();
        }
    }

    private static BulkheadTemplate template(AssertableApplicationContext context, String workload) {
        return context.getBean(BulkheadRegistry.class).template(workload);
    }

    private static LendingPool pool(AssertableApplicationContext context) {
        AdmissionGate gate = template(context, "reports").gate();
        return Objects.requireNonNull(gate.config().lending().pool());
    }

    /** How the test thread, holding nothing, is refused by {@code template}. */
    private static RejectionReason refusal(BulkheadTemplate template) {
        return catchThrowableOfType(BulkheadRejectedException.class,
                () -> template.executeWithoutResult(status -> { })).reason();
    }

    private static int busySessions(AssertableApplicationContext context) throws SQLException {
        return HeldTransaction.busySessions(context, APPLICATION_NAME);
    }
}
