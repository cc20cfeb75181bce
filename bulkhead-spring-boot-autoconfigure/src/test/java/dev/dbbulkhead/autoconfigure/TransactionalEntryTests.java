package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.io.IOException;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @DbBulkhead} beside {@code @Transactional} under DataSourceTransactionManager: admission first, then one
 * transaction with the method's own attributes, which Spring's interceptor joins. Workload {@code orders} B=1, Q=0;
 * {@code limited} sets a statement timeout.
 */
class TransactionalEntryTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1",
                    "db.bulkhead.workloads.orders.max-queued=0",
                    "db.bulkhead.workloads.limited.statement-timeout=100ms")
            .withUserConfiguration(Entries.class);

    @Test
    void aTransactionalEntryIsRefusedAtAFullGateBeforeItsTransactionBegins() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            BeginCount begun = context.getBean(BeginCount.class);
            try (HeldOperations held = HeldOperations.hold(context.getBean(BulkheadRegistry.class).template("orders"), 1)) {
                int before = begun.transactions.size();
                assertThatThrownBy(ledger::readOnlySetting).isInstanceOfSatisfying(BulkheadRejectedException.class,
                        rejected -> assertThat(rejected.reason()).isEqualTo(RejectionReason.ADMISSION_FULL));
                assertThat(begun.transactions).as("transactions begun at the full gate").hasSize(before);
            }
        });
    }

    @Test
    void theMethodRunsInOneTransactionTheAdmittedOneWhichSpringsInterceptorJoins() {
        runner.run(context -> {
            BeginCount begun = context.getBean(BeginCount.class);
            int before = begun.transactions.size();

            assertThat(context.getBean(Ledger.class).transactionName()).isEqualTo("bulkhead:orders");

            assertThat(begun.transactions.stream().skip(before).toList()).containsExactly("bulkhead:orders read-write");
        });
    }

    @Test
    void readOnlyFromTransactionalOrFromDbBulkheadMakesTheConnectionReadOnly() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThat(ledger.readOnlySetting()).isEqualTo("on");
            assertThat(ledger.readOnlyByDbBulkhead()).isEqualTo("on");
            assertThat(ledger.readWriteSetting()).isEqualTo("off");
        });
    }

    @Test
    void theIsolationOfTransactionalIsTheAdmittedTransactions() {
        runner.run(context -> assertThat(context.getBean(Ledger.class).isolation()).isEqualTo("serializable"));
    }

    @Test
    void theTimeoutOfTransactionalIsTheAdmittedTransactions() {
        runner.run(context -> {
            Date deadline = context.getBean(Ledger.class).transactionDeadline();
            Instant afterTheCall = Instant.now();
            assertThat(deadline).as("a deadline, which workload 'orders' does not set").isNotNull();
            assertThat(deadline.toInstant()).isBeforeOrEqualTo(afterTheCall.plusSeconds(7));
        });
    }

    @Test
    void theRollbackRulesOfTransactionalDecide() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            IOException checked = new IOException("rolls back by rollbackFor");
            IllegalStateException unchecked = new IllegalStateException("commits by noRollbackFor");

            assertThatThrownBy(() -> ledger.insertThenThrowRollingBack(9201, checked)).isSameAs(checked);
            assertThatThrownBy(() -> ledger.insertThenThrowCommitting(9202, unchecked)).isSameAs(unchecked);

            assertThat(ledger.count(9201)).as("rolled back for a checked exception").isZero();
            assertThat(ledger.count(9202)).as("committed despite a runtime exception").isOne();
            assertThat(checked.getSuppressed()).isEmpty();
        });
    }

    @Test
    void theWorkloadsStatementTimeoutAppliesInsideATransactionalEntry() {
        runner.run(context -> assertThat(context.getBean(Ledger.class).limitedStatementTimeout()).isEqualTo("100ms"));
    }

    @Test
    void aTransactionalEntryInsideAnActiveTransactionIsStillRefused() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            assertThatThrownBy(() -> outer.execute(status -> ledger.transactionName()))
                    .isInstanceOfSatisfying(BulkheadMisuseException.class,
                            refused -> assertThat(refused.kind()).isEqualTo(MisuseKind.ACTIVE_TRANSACTION));
        });
    }

    @Test
    void aTransactionalEntryEnteredFromInsideAnotherIsStillRefused() {
        runner.run(context -> assertThatThrownBy(context.getBean(Reentry.class)::reenter)
                .isInstanceOfSatisfying(BulkheadMisuseException.class,
                        refused -> assertThat(refused.kind()).isEqualTo(MisuseKind.REENTRANT_ENTRY)));
    }

    @Configuration(proxyBeanMethods = false)
    static class Entries {

        @Bean
        Ledger ledger(DataSource dataSource) {
            return new Ledger(new JdbcTemplate(dataSource), dataSource);
        }

        @Bean
        Reentry reentry(Ledger ledger) {
            return new Reentry(ledger);
        }

        @Bean
        BeginCount beginCount() {
            return new BeginCount();
        }
    }

    /** The transactions begun by Boot's transaction manager, each as its name and read-only flag. */
    static final class BeginCount implements TransactionExecutionListener {

        final Queue<String> transactions = new ConcurrentLinkedQueue<>();

        @Override
        public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
            transactions.add(transaction.getTransactionName() + (transaction.isReadOnly() ? " read-only" : " read-write"));
        }
    }

    /** A transactional entry of one workload that calls one of another. */
    static class Reentry {

        private final Ledger ledger;

        Reentry(Ledger ledger) {
            this.ledger = ledger;
        }

        @DbBulkhead("limited")
        @Transactional
        public List<String> reenter() {
            return List.of(ledger.transactionName());
        }
    }

    static class Ledger {

        private final JdbcTemplate jdbc;
        private final DataSource dataSource;

        Ledger(JdbcTemplate jdbc, DataSource dataSource) {
            this.jdbc = jdbc;
            this.dataSource = dataSource;
        }

        @DbBulkhead("orders")
        @Transactional
        public String transactionName() {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }

        @DbBulkhead("orders")
        @Transactional(readOnly = true)
        public String readOnlySetting() {
            return setting("transaction_read_only");
        }

        @DbBulkhead(value = "orders", readOnly = true)
        public String readOnlyByDbBulkhead() {
            return setting("transaction_read_only");
        }

        @DbBulkhead("orders")
        public String readWriteSetting() {
            return setting("transaction_read_only");
        }

        @DbBulkhead("orders")
        @Transactional(isolation = Isolation.SERIALIZABLE)
        public String isolation() {
            return setting("transaction_isolation");
        }

        @DbBulkhead("orders")
        @Transactional(timeout = 7)
        public @Nullable Date transactionDeadline() {
            // Read inside: the transaction clears its connection's deadline when it ends.
            return ((ConnectionHolder) TransactionSynchronizationManager.getResource(dataSource)).getDeadline();
        }

        @DbBulkhead("orders")
        @Transactional(rollbackFor = IOException.class)
        public void insertThenThrowRollingBack(int id, IOException failure) throws IOException {
            jdbc.update("INSERT INTO entries (id) VALUES (?)", id);
            throw failure;
        }

        @DbBulkhead("orders")
        @Transactional(noRollbackFor = IllegalStateException.class)
        public void insertThenThrowCommitting(int id, IllegalStateException failure) {
            jdbc.update("INSERT INTO entries (id) VALUES (?)", id);
            throw failure;
        }

        @DbBulkhead("limited")
        @Transactional(readOnly = true)
        public String limitedStatementTimeout() {
            return setting("statement_timeout");
        }

        int count(int id) {
            return jdbc.queryForObject("SELECT count(*) FROM entries WHERE id = ?", Integer.class, id);
        }

        private String setting(String name) {
            return jdbc.queryForObject("SELECT current_setting(?)", String.class, name);
        }
    }
}
