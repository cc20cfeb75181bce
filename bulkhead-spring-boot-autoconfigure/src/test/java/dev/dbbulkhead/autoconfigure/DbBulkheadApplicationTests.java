package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.autoconfigure.BulkheadTestApplication.Entries;
import dev.dbbulkhead.autoconfigure.BulkheadTestApplication.Misuse;
import dev.dbbulkhead.autoconfigure.BulkheadTestApplication.TransactionalCaller;
import dev.dbbulkhead.autoconfigure.BulkheadTestApplication.TypeLevelEntries;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.core.JdbcTemplate;

class DbBulkheadApplicationTests extends ApplicationTestSupport {

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    @Qualifier("orders")
    BulkheadTemplate orders;

    @Autowired
    Entries entries;

    @Autowired
    TypeLevelEntries typeLevelEntries;

    @Autowired
    Misuse misuse;

    @Autowired
    TransactionalCaller transactionalCaller;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void theIssuesYamlConfiguresOrdersAndReports() {
        assertThat(registry.names()).containsExactly("orders", "reports", "queued");
        assertThat(orders).isSameAs(registry.template("orders"));
        assertThat(orders.gate().config()).isEqualTo(GateConfig.builder()
                .maxConcurrent(8).maxQueued(16).queueWait(Duration.ofMillis(50)).build());
        assertThat(registry.template("reports").gate().config()).isEqualTo(GateConfig.builder()
                .maxConcurrent(2).maxQueued(0).queueWait(Duration.ZERO).build());
    }

    @Test
    void anAnnotatedMethodRunsInsideItsWorkloadsTransactionAndReturnsItsValue() {
        assertThat(entries.ordersTransactionName()).isEqualTo("bulkhead:orders");
        assertThat(entries.reportsTransactionName()).isEqualTo("bulkhead:reports");
        assertThat(entries.insert(1)).isEqualTo(1);
        assertThat(rows(1)).isOne();
    }

    @Test
    void aMethodsOwnAnnotationWinsOverItsClasss() {
        assertThat(typeLevelEntries.classWorkload()).isEqualTo("bulkhead:reports");
        assertThat(typeLevelEntries.ownWorkload()).isEqualTo("bulkhead:orders");
    }

    @Test
    void aRuntimeExceptionRollsBackAndReachesTheCallerUnchanged() {
        IllegalStateException failure = new IllegalStateException("runtime");
        assertThatThrownBy(() -> entries.insertThenThrow(2, failure)).isSameAs(failure);
        assertThat(rows(2)).isZero();
    }

    @Test
    void anErrorRollsBackAndReachesTheCallerUnchanged() {
        AssertionError failure = new AssertionError("error");
        assertThatThrownBy(() -> entries.insertThenThrow(3, failure)).isSameAs(failure);
        assertThat(rows(3)).isZero();
    }

    @Test
    void aCheckedExceptionCommitsAndReachesTheCallerUnchanged() {
        IOException failure = new IOException("checked");
        int transactionsBefore = transactions.begun();
        assertThatThrownBy(() -> entries.insertThenThrow(4, failure)).isSameAs(failure);
        assertThat(rows(4)).isOne();
        assertThat(failure.getSuppressed()).isEmpty();
        assertThat(transactions.begun() - transactionsBefore).isOne();
    }

    @Test
    void requiresNewThroughATransactionalBeanIsRefusedBeforeASecondConnectionIsTaken() {
        assertRefusedInsideOneTransaction(misuse::requiresNewThroughATransactionalBean, MisuseKind.SUSPENDING_PROPAGATION);
    }

    @Test
    void notSupportedThroughATransactionalBeanIsRefusedBeforeTheTransactionIsSuspended() {
        assertRefusedInsideOneTransaction(misuse::notSupportedThroughATransactionalBean,
                MisuseKind.SUSPENDING_PROPAGATION);
    }

    @Test
    void requiresNewThroughATransactionTemplateIsRefusedBeforeASecondConnectionIsTaken() {
        assertRefusedInsideOneTransaction(misuse::requiresNewThroughATransactionTemplate,
                MisuseKind.SUSPENDING_PROPAGATION);
    }

    @Test
    void requiresNewThroughTheTransactionManagerIsRefusedBeforeASecondConnectionIsTaken() {
        assertRefusedInsideOneTransaction(misuse::requiresNewThroughTheTransactionManager,
                MisuseKind.SUSPENDING_PROPAGATION);
    }

    @Test
    void enteringTheSameWorkloadAgainFromAnAnnotatedMethodIsRefused() {
        assertRefusedInsideOneTransaction(misuse::reenterTheSameWorkload, MisuseKind.REENTRANT_ENTRY);
    }

    @Test
    void enteringAnotherWorkloadFromAnAnnotatedMethodIsRefused() {
        assertRefusedInsideOneTransaction(misuse::reenterAnotherWorkload, MisuseKind.REENTRANT_ENTRY);
    }

    @Test
    void enteringATemplateFromAnAnnotatedMethodIsRefused() {
        assertRefusedInsideOneTransaction(misuse::reenterThroughATemplate, MisuseKind.REENTRANT_ENTRY);
    }

    @Test
    void callingAnAnnotatedMethodInsideAnActiveTransactionIsRefused() {
        assertRefusedInsideOneTransaction(transactionalCaller::callOrders, MisuseKind.ACTIVE_TRANSACTION);
    }

    @Test
    void afterEveryMisuseTheGateIsFreeAgain() {
        assertThatThrownBy(misuse::requiresNewThroughATransactionalBean).isInstanceOf(BulkheadMisuseException.class);
        assertThat(orders.gate().active()).isZero();
        assertThat(orders.gate().waiting()).isZero();
        assertThat(entries.ordersTransactionName()).isEqualTo("bulkhead:orders");
    }

    /** The misuse is refused with {@code kind}, one transaction had begun, and it held the only connection. */
    private void assertRefusedInsideOneTransaction(Executable call, MisuseKind kind) {
        int transactionsBefore = transactions.begun();
        assertThatThrownBy(call::execute).isInstanceOfSatisfying(BulkheadMisuseException.class,
                refused -> assertThat(refused.kind()).isEqualTo(kind));
        assertThat(transactions.begun() - transactionsBefore).as("transactions begun").isOne();
        if (kind != MisuseKind.ACTIVE_TRANSACTION) {
            assertThat(misuse.activeConnectionsAtMisuse()).as("connections lent when refused").isOne();
        }
        assertThat(activeConnections()).isZero();
    }

    private int rows(int id) {
        return jdbc.queryForObject("SELECT count(*) FROM entries WHERE id = ?", Integer.class, id);
    }
}
