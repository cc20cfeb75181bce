package dev.dbbulkhead.jpa.verdicts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Commit verdicts under {@link JpaTransactionManager}: Hibernate runs its SQL when the transaction is flushed at
 * commit, so that is where optimistic-lock conflicts and our own statement and lock timeouts surface. All of them,
 * and a throwing {@code BEFORE_COMMIT} listener, are known rollbacks that reach the caller as Spring throws them;
 * only a JDBC commit failing without a verdict is unknown.
 */
@DisplayName("Commit verdicts under JpaTransactionManager (Hibernate, Spring Data, real PostgreSQL)")
class JpaCommitVerdictTests extends AbstractAdmittedJpaTests {

    @Autowired
    @Qualifier("plain")
    BulkheadTemplate plain;

    @Autowired
    @Qualifier("statement")
    BulkheadTemplate statementTimeout;

    @Autowired
    @Qualifier("lock")
    BulkheadTemplate lockTimeout;

    private long orderId;

    @BeforeEach
    void anOrder() {
        assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
        orderId = new TransactionTemplate(transactionManager).execute(status -> {
            Customer customer = customers.save(new Customer("grace"));
            return orders.save(new PurchaseOrder(customer).addLine("pen", 1)).getId();
        });
    }

    @Test
    @DisplayName("an optimistic lock conflict found at flush is the exception TransactionTemplate throws, a known rollback")
    void optimisticLockConflictAtFlushIsTheExceptionSpringThrows() {
        Throwable bySpring = catchThrowable(() -> new TransactionTemplate(transactionManager)
                .executeWithoutResult(status -> renameAfterAConcurrentUpdate("by-spring")));
        double rolledBackBefore = executions("plain", "rolled_back");

        Throwable byBulkhead = catchThrowable(() -> plain.executeWithoutResult(status ->
                renameAfterAConcurrentUpdate("by-bulkhead")));

        assertThat(bySpring).isInstanceOf(OptimisticLockingFailureException.class);
        assertThat(byBulkhead).isExactlyInstanceOf(bySpring.getClass());
        assertThat(executions("plain", "rolled_back")).isEqualTo(rolledBackBefore + 1);
        assertThat(statusOfTheOrder()).isNotIn("by-spring", "by-bulkhead");
    }

    @Test
    @DisplayName("a retry on optimistic lock failures, as written for TransactionTemplate, still matches and succeeds")
    void retryOnOptimisticLockFailureStillMatches() {
        int attempts = 0;
        while (true) {
            attempts++;
            boolean conflict = attempts == 1;
            try {
                plain.executeWithoutResult(status -> {
                    if (conflict) {
                        renameAfterAConcurrentUpdate("retried");
                    } else {
                        orders.findById(orderId).orElseThrow().setStatus("retried");
                    }
                });
                break;
            } catch (OptimisticLockingFailureException retryable) {
                assertThat(attempts).as("one conflict, then success").isEqualTo(1);
            }
        }

        assertThat(attempts).isEqualTo(2);
        assertThat(statusOfTheOrder()).isEqualTo("retried");
    }

    @ParameterizedTest(name = "{0}: SQLState {1} at flush is a known rollback")
    @CsvSource({"statement, 57014", "lock, 55P03"})
    @DisplayName("our own statement and lock timeouts firing at flush are known rollbacks, not unknown outcomes")
    void ownTimeoutAtFlushIsAKnownRollback(String workload, String sqlState) throws SQLException {
        BulkheadTemplate template = workload.equals("statement") ? statementTimeout : lockTimeout;
        double rolledBackBefore = executions(workload, "rolled_back");

        Throwable thrown;
        try (Connection lockHolder = JpaTestDatabase.DATABASE.connect();
             Statement lock = lockHolder.createStatement()) {
            lockHolder.setAutoCommit(false);
            lock.execute("SELECT id FROM purchase_order WHERE id = " + orderId + " FOR UPDATE");
            // The UPDATE Hibernate sends when it flushes at commit waits for the row lock held here.
            thrown = catchThrowable(() -> template.executeWithoutResult(status ->
                    orders.findById(orderId).orElseThrow().setStatus("timed-out")));
            lockHolder.rollback();
        }

        assertThat(thrown).isNotInstanceOf(CommitOutcomeUnknownException.class);
        assertThat(sqlExceptionIn(thrown).getSQLState()).isEqualTo(sqlState);
        assertThat(executions(workload, "rolled_back")).isEqualTo(rolledBackBefore + 1);
        assertThat(executions(workload, "unknown")).isZero();
        assertThat(statusOfTheOrder()).isEqualTo("NEW");
    }

    @Test
    @DisplayName("a throwing @TransactionalEventListener(BEFORE_COMMIT) is a known rollback; its own exception reaches the caller")
    void throwingBeforeCommitListenerIsAKnownRollback() {
        double rolledBackBefore = executions("plain", "rolled_back");

        Throwable thrown = catchThrowable(() -> plain.executeWithoutResult(status -> {
            orders.findById(orderId).orElseThrow().setStatus("refused");
            events.publishEvent(new Refusal("no such product any more"));
        }));

        assertThat(thrown).isExactlyInstanceOf(RefusedByListener.class).hasMessage("no such product any more");
        assertThat(executions("plain", "rolled_back")).isEqualTo(rolledBackBefore + 1);
        assertThat(statusOfTheOrder()).isEqualTo("NEW");
    }

    @Test
    @DisplayName("a throwing beforeCommit synchronization is a known rollback; its own exception reaches the caller")
    void throwingBeforeCommitSynchronizationIsAKnownRollback() {
        IllegalStateException refusal = new IllegalStateException("refused before commit");
        double rolledBackBefore = executions("plain", "rolled_back");

        Throwable thrown = catchThrowable(() -> plain.executeWithoutResult(status -> {
            orders.findById(orderId).orElseThrow().setStatus("refused");
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    throw refusal;
                }
            });
        }));

        assertThat(thrown).isSameAs(refusal);
        assertThat(executions("plain", "rolled_back")).isEqualTo(rolledBackBefore + 1);
        assertThat(statusOfTheOrder()).isEqualTo("NEW");
    }

    @Test
    @DisplayName("the JDBC commit failing with SQLState 40003 (statement completion unknown) is an unknown outcome")
    void statementCompletionUnknownAtTheJdbcCommitIsUnknown() {
        double unknownBefore = executions("plain", "unknown");
        commitFaults.failNextCommit("40003");

        Throwable thrown = catchThrowable(() -> plain.executeWithoutResult(status ->
                orders.findById(orderId).orElseThrow().setStatus("maybe")));

        assertThat(thrown).isInstanceOf(CommitOutcomeUnknownException.class);
        assertThat(sqlExceptionIn(thrown).getSQLState()).isEqualTo("40003");
        assertThat(executions("plain", "unknown")).isEqualTo(unknownBefore + 1);
    }

    @Test
    @DisplayName("the connection lost between the flush and the JDBC commit is an unknown outcome")
    void connectionLostAtTheJdbcCommitIsUnknown() {
        double unknownBefore = executions("plain", "unknown");

        Throwable thrown = catchThrowable(() -> plain.executeWithoutResult(status -> {
            orders.findById(orderId).orElseThrow().setStatus("lost");
            int backend = ((Number) entityManager.createNativeQuery("SELECT pg_backend_pid()").getSingleResult())
                    .intValue();
            // After every beforeCommit callback and the flush: only the JDBC commit is left to fail.
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCompletion() {
                    endBackendAndWaitUntilGone(backend);
                }
            });
        }));

        assertThat(thrown).isInstanceOf(CommitOutcomeUnknownException.class);
        assertThat(executions("plain", "unknown")).isEqualTo(unknownBefore + 1);
        assertThat(statusOfTheOrder()).as("here the server never saw the commit").isEqualTo("NEW");
    }

    /** Loads the order, lets another writer change it, then changes it here: the flush at commit must conflict. */
    private void renameAfterAConcurrentUpdate(String status) {
        PurchaseOrder order = orders.findById(orderId).orElseThrow();
        JpaTestDatabase.DATABASE.execute("UPDATE purchase_order SET version = version + 1, status = 'concurrent'"
                + " WHERE id = " + orderId);
        order.setStatus(status);
    }

    private String statusOfTheOrder() {
        return sideQuery("SELECT status FROM purchase_order WHERE id = " + orderId);
    }
}
