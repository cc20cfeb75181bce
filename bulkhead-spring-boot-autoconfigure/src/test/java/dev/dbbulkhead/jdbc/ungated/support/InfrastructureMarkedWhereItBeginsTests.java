package dev.dbbulkhead.jdbc.ungated.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.HeldPlaces;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import dev.dbbulkhead.jdbc.ungated.CallerRules;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import dev.dbbulkhead.jdbc.ungated.PoolAdmission;
import dev.dbbulkhead.jdbc.ungated.StackSampling;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import dev.dbbulkhead.jdbc.ungated.WorkRules;
import dev.dbbulkhead.testing.PostgresFixture;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextManager;
import org.springframework.test.context.TestExecutionListener;
import org.springframework.test.context.jdbc.SqlScriptsTestExecutionListener;
import org.springframework.test.context.transaction.TransactionalTestExecutionListener;

/**
 * Infrastructure marked where it begins — the health endpoint, the transaction a test framework begins around a test —
 * on real PostgreSQL, with a pool whose admission reads no borrow's stack: its borrows are recognised by the mark
 * alone, while the same borrows unmarked are admitted by the default workload, whose only place another thread holds.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class InfrastructureMarkedWhereItBeginsTests {

    private static HikariDataSource pool;

    private final AdmissionGate gate = new AdmissionGate("default",
            GateConfig.builder().maxConcurrent(1).maxQueued(0).build());
    private WatchedDataSource dataSource;
    private HeldPlaces held;

    @BeforeAll
    static void openPool() {
        pool = PostgresFixture.freshSchema().pool(2);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @BeforeEach
    void holdTheDefaultWorkloadsOnlyPlace() throws InterruptedException {
        PoolAdmission admission = new PoolAdmission(workload -> gate, "default", WorkRules.none(),
                ConnectionRequest.PLAIN, new JobRefusals(JobRefusals.Listener.NONE),
                StackSampling.of(0, Integer.MAX_VALUE, () -> false));
        dataSource = new WatchedDataSource(pool, new UngatedConnectionDetector("dataSource",
                new DetectionSettings(CallerRules.defaults(), false, 10, "advice"), UngatedConnectionListener.NONE),
                ConnectionRequest.PLAIN, admission);
        held = HeldPlaces.of(gate);
    }

    @AfterEach
    void releaseIt() throws InterruptedException {
        held.close();
    }

    private @Nullable Object borrow() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return connection.isValid(1);
        }
    }

    private Map<String, Long> recognised() {
        return dataSource.detector().report().recognised();
    }

    @Test
    void theHealthEndpointsOperationsBorrowOutsideTheGatesWhileOtherEndpointsAreAdmitted() {
        HealthEndpointOutsideGates advisor = new HealthEndpointOutsideGates();
        OperationInvoker borrowing = context -> {
            try {
                return borrow();
            } catch (SQLException failed) {
                throw new IllegalStateException(failed);
            }
        };

        assertThat(advisor.apply(EndpointId.of("health"), OperationType.READ, null, borrowing).invoke(null))
                .isEqualTo(true);
        assertThatThrownBy(() -> advisor.apply(EndpointId.of("bulkheads"), OperationType.READ, null, borrowing)
                .invoke(null)).isInstanceOf(BulkheadRejectedException.class);
        assertThatThrownBy(() -> borrowing.invoke(null)).as("the health endpoint's operation, not advised")
                .isInstanceOf(BulkheadRejectedException.class);

        assertThat(recognised()).containsExactly(Map.entry(HealthEndpointOutsideGates.RULE, 1L));
    }

    @Test
    void theTestsTransactionAndScriptsBorrowOutsideTheGatesAndEverythingBetweenInside() throws Exception {
        TestExecutionListener before = new TestTransactionOutsideGates.Before();
        TestExecutionListener after = new TestTransactionOutsideGates.After();
        TestContext test = new FakeTestContext();

        // The framework's order: before-callbacks by rising order, after-callbacks by falling order.
        before.beforeTestMethod(test);
        assertThat(borrow()).as("the test transaction begins").isEqualTo(true);
        assertThat(borrow()).as("an @Sql script before the test").isEqualTo(true);
        after.beforeTestMethod(test);
        assertThatThrownBy(this::borrow).as("@BeforeEach, the test method, @AfterEach")
                .isInstanceOf(BulkheadRejectedException.class);
        after.afterTestMethod(test);
        assertThat(borrow()).as("the transaction ends, an @AfterTransaction method").isEqualTo(true);
        before.afterTestMethod(test);
        assertThatThrownBy(this::borrow).as("after the test").isInstanceOf(BulkheadRejectedException.class);

        assertThat(recognised()).containsExactly(Map.entry(TestTransactionOutsideGates.RULE, 3L));
    }

    @Test
    void aTestWhoseTransactionFailedToBeginLeavesNoMarkOnTheThread() throws Exception {
        TestExecutionListener before = new TestTransactionOutsideGates.Before();
        TestExecutionListener after = new TestTransactionOutsideGates.After();
        TestContext test = new FakeTestContext();

        // The transactional listener's beforeTestMethod failed: the framework skips the later before-callbacks and
        // still calls every after-callback.
        before.beforeTestMethod(test);
        after.afterTestMethod(test);
        before.afterTestMethod(test);

        assertThatThrownBy(this::borrow).isInstanceOf(BulkheadRejectedException.class);
    }

    @Test
    void theTestContextFrameworkFindsTheListenersJustAroundItsTransactionAndScriptListeners() {
        // The listeners the framework itself finds for a test class that names none, in its order.
        List<Class<?>> defaults = new TestContextManager(InfrastructureMarkedWhereItBeginsTests.class)
                .getTestExecutionListeners().stream().<Class<?>>map(Object::getClass).toList();

        int transactional = defaults.indexOf(TransactionalTestExecutionListener.class);
        assertThat(transactional).isPositive();
        assertThat(defaults.subList(transactional - 1, transactional + 3)).containsExactly(
                TestTransactionOutsideGates.Before.class, TransactionalTestExecutionListener.class,
                SqlScriptsTestExecutionListener.class, TestTransactionOutsideGates.After.class);
    }

    /** A test context with attributes and nothing else, as the listener reads only those. */
    private static final class FakeTestContext extends org.springframework.core.AttributeAccessorSupport
            implements TestContext {

        @Override
        public ApplicationContext getApplicationContext() {
            throw new UnsupportedOperationException("no context");
        }

        @Override
        public Class<?> getTestClass() {
            return InfrastructureMarkedWhereItBeginsTests.class;
        }

        @Override
        public Object getTestInstance() {
            throw new UnsupportedOperationException("no instance");
        }

        @Override
        public Method getTestMethod() {
            throw new UnsupportedOperationException("no method");
        }

        @Override
        public @Nullable Throwable getTestException() {
            return null;
        }

        @Override
        public void markApplicationContextDirty(org.springframework.test.annotation.DirtiesContext.@Nullable HierarchyMode mode) {
        }

        @Override
        public void updateState(@Nullable Object testInstance, @Nullable Method testMethod,
                                @Nullable Throwable testException) {
        }
    }
}
