package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint.LimitDescriptor;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.budget.BudgetFinding.Kind;
import dev.dbbulkhead.budget.BudgetFinding;
import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.limit.LimitSnapshot;
import dev.dbbulkhead.metrics.BulkheadMeterBinder;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/** {@code limit.mode=adaptive} wired into the gates, the budget check, the endpoint and the meters. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class AdaptiveLimitAutoConfigurationTests {

    private static final String SHORT = "SELECT pg_sleep(0.01)";
    private static final String LONG = "SELECT pg_sleep(0.05)";

    private final MeterRegistry meters = new SimpleMeterRegistry();

    private final ApplicationContextRunner runner = MeteredEndpointApplications.runner(meters)
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=8",
                    "db.bulkhead.workloads.orders.max-concurrent=6", "db.bulkhead.workloads.orders.max-queued=3",
                    "db.bulkhead.workloads.orders.limit.mode=adaptive",
                    "db.bulkhead.workloads.reports.max-concurrent=2");

    @Test
    void aWorkloadKeepsAFixedBUnlessItsLimitModeIsAdaptive() {
        runner.run(context -> {
            AdaptiveLimits limits = context.getBean(AdaptiveLimits.class);
            assertThat(limits.find("reports")).isEmpty();
            assertThat(limits.find("orders")).isPresent();
            assertThat(context.getBean(BulkheadsEndpoint.class).workload("reports").limit()).isEqualTo(LimitDescriptor.FIXED);
        });
    }

    @Test
    void anAdaptiveLimitStartsAtMaxConcurrentWithItsBoundsFallingBackKeyByKeyToTheDefaults() {
        runner.withPropertyValues("db.bulkhead.defaults.limit.min-concurrent=2",
                        "db.bulkhead.defaults.limit.max-concurrent=7",
                        "db.bulkhead.workloads.inventory.limit.mode=adaptive",
                        "db.bulkhead.workloads.inventory.max-concurrent=3",
                        "db.bulkhead.workloads.inventory.limit.max-concurrent=4")
                .run(context -> {
                    AdaptiveLimits limits = context.getBean(AdaptiveLimits.class);
                    assertThat(limits.find("orders").orElseThrow().config()).isEqualTo(AdaptiveLimitConfig.builder()
                            .minConcurrent(2).maxConcurrent(7).build());
                    assertThat(limits.find("inventory").orElseThrow().config()).isEqualTo(AdaptiveLimitConfig
                            .builder().minConcurrent(2).maxConcurrent(4).build());
                    assertThat(context.getBean("orders", BulkheadTemplate.class).gate().config().maxConcurrent())
                            .isEqualTo(6);
                });
    }

    @Test
    void theCeilingDefaultsToMaxConcurrent() {
        runner.run(context -> assertThat(context.getBean(AdaptiveLimits.class).find("orders").orElseThrow().config())
                .isEqualTo(AdaptiveLimitConfig.builder().minConcurrent(1).maxConcurrent(6).build()));
    }

    @Test
    void theBudgetCheckAddsUpTheCeilingSoItsArithmeticHoldsWhateverTheLimitLearns() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.limit.max-concurrent=7").run(context -> {
            ConnectionBudgetCheck check = context.getBean(ConnectionBudgetCheck.class);
            assertThat(check.report().orElseThrow().pools().getFirst().gatedArithmetic())
                    .isEqualTo("orders=7 + reports=2 = 9");
            assertThat(check.report().orElseThrow().findings()).extracting(BudgetFinding::kind)
                    .containsExactly(Kind.POOL_OVERCOMMITTED);
        });
    }

    @Test
    void theEndpointShowsTheBoundsAndRefusesToResizeALearntBButResizesItsQ() {
        runner.run(context -> {
            BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
            LimitDescriptor limit = endpoint.workload("orders").limit();
            assertThat(limit.mode()).isEqualTo("adaptive");
            assertThat(limit.minConcurrent()).isEqualTo(1);
            assertThat(limit.maxConcurrent()).isEqualTo(6);
            assertThat(limit.learnt().concurrent()).isEqualTo(6);
            assertThat(limit.learnt().noLoadHoldTime()).as("no probe yet").isNull();

            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> endpoint.resize("orders", 3, null))
                    .withMessageContaining("The B of workload 'orders' is adaptive");
            assertThat(endpoint.resize("orders", null, 5).maxQueued()).isEqualTo(5);
            assertThat(endpoint.workload("orders").maxConcurrent()).isEqualTo(6);
        });
    }

    /**
     * On the real database, one operation at a time: short statements teach the no-load hold time, then statements
     * that hold their permit five times as long lower B, then short ones raise it back to the ceiling. Both wait on
     * the server instead of computing, so their hold times do not depend on what else the machine runs. The loops
     * run until the state is reached; only the state is asserted.
     */
    @Test
    void onPostgresTheLimitFallsUnderSlowTransactionsAndRisesBackAndTheGaugeAndEndpointFollow() {
        runner.run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            AdaptiveLimit limit = context.getBean(AdaptiveLimits.class).find("orders").orElseThrow();
            BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
            JdbcTemplate jdbc = new JdbcTemplate(orders.dataSource().orElseThrow());
            AdmissionGate gate = orders.gate();

            while (limit.snapshot().noLoadNanos() == 0) {
                orders.executeWithoutResult(status -> jdbc.execute(SHORT));
            }
            while (limit.snapshot().learnt() == 6) {
                orders.executeWithoutResult(status -> jdbc.execute(LONG));
            }
            LimitSnapshot lowered = limit.snapshot();
            assertThat(lowered.learnt()).isBetween(1, 5);
            assertThat(lowered.observedNanos()).isGreaterThan(lowered.noLoadNanos());
            assertThat(gate.config().maxConcurrent()).isEqualTo(lowered.concurrent());
            assertThat(gate.config().maxQueued()).as("Q as configured").isEqualTo(3);
            assertThat(limitGauge()).isEqualTo(lowered.concurrent());
            assertThat(endpoint.workload("orders").limit().learnt().noLoadHoldTime()).isNotNull();

            while (limit.snapshot().learnt() < 6) {
                orders.executeWithoutResult(status -> jdbc.execute(SHORT));
            }
            assertThat(limit.snapshot().learnt()).isEqualTo(6);
            assertThat(limitGauge()).isEqualTo(gate.config().maxConcurrent());
            assertThat(endpoint.workload("orders").limit().learnt().concurrent()).isEqualTo(6);
        });
    }

    private double limitGauge() {
        return meters.get(BulkheadMeterBinder.LIMIT).tag("workload", "orders").tag("kind", "concurrent").gauge()
                .value();
    }
}
