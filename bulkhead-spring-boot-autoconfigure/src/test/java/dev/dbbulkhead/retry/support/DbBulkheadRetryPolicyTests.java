package dev.dbbulkhead.retry.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateSaturation;
import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.WorkloadRetries;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.retry.policy.SimpleRetryPolicy;
import org.springframework.retry.support.RetryTemplate;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.TransactionDefinition;

/**
 * spring-retry retrying a workload's operations through {@link DbBulkheadRetryPolicy}: refusals of a full gate, which
 * never reach a transaction, so no database is needed to count the attempts.
 */
class DbBulkheadRetryPolicyTests {

    private final AtomicInteger attempts = new AtomicInteger();

    @Test
    void aRefusalIsRetriedAsOftenAsTheWrappedPolicyAllowsWhileTheBudgetGrantsIt() {
        // A floor of one retry a second over a ten-second window: ten retries to grant, of which three are asked.
        WorkloadRetries retries = retries(RetryBudgetConfig.builder().percentCanRetry(0).minRetriesPerSecond(1));
        BulkheadTemplate orders = template(retries);

        BulkheadRejectedException refused = runFull(orders, new SimpleRetryPolicy(4), retries);

        assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
        assertThat(attempts).as("the first attempt and the three retries the wrapped policy allows").hasValue(4);
        assertThat(retries.granted()).as("asked once per failure, and not after the last").isEqualTo(3);
        assertThat(retries.refused()).isZero();
    }

    @Test
    void noRefusalIsRetriedOnceTheBudgetIsSpent() {
        WorkloadRetries retries = retries(RetryBudgetConfig.builder().percentCanRetry(0).minRetriesPerSecond(0));
        BulkheadTemplate orders = template(retries);

        runFull(orders, new SimpleRetryPolicy(4), retries);

        assertThat(attempts).hasValue(1);
        assertThat(retries.refused()).as("asked once, though spring-retry asks the policy several times").isOne();
        assertThat(retries.granted()).isZero();
    }

    @Test
    void aFailureNotSafeToRetryIsNotRetriedAndCostsTheBudgetNothing() {
        WorkloadRetries retries = retries(RetryBudgetConfig.builder());
        RetryTemplate retrying = new RetryTemplate();
        retrying.setRetryPolicy(new DbBulkheadRetryPolicy(retries, new SimpleRetryPolicy(4)));

        IllegalStateException failure = catchThrowableOfType(IllegalStateException.class,
                () -> retrying.execute(context -> {
                    attempts.incrementAndGet();
                    throw new IllegalStateException("the work's own failure");
                }));

        assertThat(failure).hasMessage("the work's own failure");
        assertThat(attempts).hasValue(1);
        assertThat(retries.granted() + retries.refused()).isZero();
    }

    private BulkheadRejectedException runFull(BulkheadTemplate orders, SimpleRetryPolicy wrapped,
                                              WorkloadRetries retries) {
        RetryTemplate retrying = new RetryTemplate();
        retrying.setRetryPolicy(new DbBulkheadRetryPolicy(retries, wrapped));
        try (GateSaturation full = orders.gate().saturate()) {
            return catchThrowableOfType(BulkheadRejectedException.class, () -> retrying.execute(context -> {
                attempts.incrementAndGet();
                return orders.execute(status -> "never runs");
            }));
        }
    }

    private static WorkloadRetries retries(RetryBudgetConfig.Builder budget) {
        return new WorkloadRetries(1, new RetryBudget(budget.build()));
    }

    private static BulkheadTemplate template(WorkloadRetries retries) {
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).build());
        return new BulkheadTemplate(gate, new NoTransactions()).withRetries(retries);
    }

    /** A transaction manager no test reaches: the gate refuses every operation before a transaction begins. */
    private static final class NoTransactions extends AbstractPlatformTransactionManager {

        @Override
        protected Object doGetTransaction() {
            throw new AssertionError("a refused operation began a transaction");
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            throw new AssertionError("a refused operation began a transaction");
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            throw new AssertionError("a refused operation committed");
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            throw new AssertionError("a refused operation rolled back");
        }
    }
}
