package dev.dbbulkhead.autoconfigure;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/** A whole Spring Boot application with the bulkhead starter's auto-configuration and application.yml. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({BulkheadTestApplication.Entries.class, BulkheadTestApplication.TypeLevelEntries.class,
        BulkheadTestApplication.Overload.class, BulkheadTestApplication.Misuse.class,
        BulkheadTestApplication.Inner.class, BulkheadTestApplication.TransactionalCaller.class})
class BulkheadTestApplication {

    /** Counts the transactions begun by Boot's transaction manager (it registers every such listener bean). */
    @Bean
    TransactionCounter transactionCounter() {
        return new TransactionCounter();
    }

    static final class TransactionCounter implements TransactionExecutionListener {

        private final AtomicInteger begun = new AtomicInteger();

        @Override
        public void beforeBegin(TransactionExecution transaction) {
            begun.incrementAndGet();
        }

        int begun() {
            return begun.get();
        }
    }

    /** The work of admitted calls, held inside the transaction until the test releases it. */
    static final class Hold {

        final CountDownLatch entered;
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger mostRunning = new AtomicInteger();

        Hold(int expectedToEnter) {
            this.entered = new CountDownLatch(expectedToEnter);
        }

        String inside(JdbcTemplate jdbc) throws InterruptedException {
            mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                jdbc.queryForObject("SELECT 1", Integer.class);
                entered.countDown();
                release.await();
                return TransactionSynchronizationManager.getCurrentTransactionName();
            } finally {
                running.decrementAndGet();
            }
        }
    }

    static class Overload {

        private final JdbcTemplate jdbc;

        Overload(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DbBulkhead("orders")
        public String orders(Hold hold) throws InterruptedException {
            return hold.inside(jdbc);
        }

        @DbBulkhead("reports")
        public String reports(Hold hold) throws InterruptedException {
            return hold.inside(jdbc);
        }

        @DbBulkhead("queued")
        public String queued(Hold hold) throws InterruptedException {
            return hold.inside(jdbc);
        }
    }

    static class Entries {

        private final JdbcTemplate jdbc;

        Entries(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DbBulkhead("orders")
        public String ordersTransactionName() {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }

        @DbBulkhead("reports")
        public String reportsTransactionName() {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }

        @DbBulkhead("orders")
        public int insert(int id) {
            jdbc.update("INSERT INTO entries (id) VALUES (?)", id);
            return id;
        }

        @DbBulkhead("orders")
        public void insertThenThrow(int id, Throwable failure) throws Throwable {
            jdbc.update("INSERT INTO entries (id) VALUES (?)", id);
            throw failure;
        }
    }

    @DbBulkhead("reports")
    static class TypeLevelEntries {

        public String classWorkload() {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }

        @DbBulkhead("orders")
        public String ownWorkload() {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }
    }

    /** Transactional code called from inside an admitted region, as a user might wrongly write it. */
    static class Inner {

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void requiresNew() {
        }

        @Transactional(propagation = Propagation.NOT_SUPPORTED)
        public void notSupported() {
        }
    }

    /** Each method enters the admitted region of "orders", then misuses it one way. */
    static class Misuse {

        private final Inner inner;
        private final Entries entries;
        private final BulkheadRegistry registry;
        private final PlatformTransactionManager transactionManager;
        private final HikariDataSource pool;
        private final AtomicInteger activeConnectionsAtMisuse = new AtomicInteger(-1);

        Misuse(Inner inner, Entries entries, BulkheadRegistry registry, PlatformTransactionManager transactionManager,
               DataSource dataSource) {
            this.inner = inner;
            this.entries = entries;
            this.registry = registry;
            this.transactionManager = transactionManager;
            this.pool = DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class, HikariDataSource.class);
        }

        @DbBulkhead("orders")
        public void requiresNewThroughATransactionalBean() {
            observe(inner::requiresNew);
        }

        @DbBulkhead("orders")
        public void notSupportedThroughATransactionalBean() {
            observe(inner::notSupported);
        }

        @DbBulkhead("orders")
        public void requiresNewThroughATransactionTemplate() {
            TransactionTemplate requiresNew = new TransactionTemplate(transactionManager);
            requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            observe(() -> requiresNew.executeWithoutResult(status -> { }));
        }

        @DbBulkhead("orders")
        public void requiresNewThroughTheTransactionManager() {
            observe(() -> transactionManager.getTransaction(
                    new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW)));
        }

        @DbBulkhead("orders")
        public void reenterTheSameWorkload() {
            observe(entries::ordersTransactionName);
        }

        @DbBulkhead("orders")
        public void reenterAnotherWorkload() {
            observe(entries::reportsTransactionName);
        }

        @DbBulkhead("orders")
        public void reenterThroughATemplate() {
            observe(() -> registry.template("reports").executeWithoutResult(status -> { }));
        }

        /** Runs the misuse and notes how many connections the pool had lent when it was refused. */
        private void observe(Runnable misuse) {
            try {
                misuse.run();
            } finally {
                activeConnectionsAtMisuse.set(pool.getHikariPoolMXBean().getActiveConnections());
            }
        }

        int activeConnectionsAtMisuse() {
            return activeConnectionsAtMisuse.get();
        }
    }

    /** A transactional bean that calls a @DbBulkhead method: admission would come after its transaction began. */
    static class TransactionalCaller {

        private final Entries entries;

        TransactionalCaller(Entries entries) {
            this.entries = entries;
        }

        @Transactional
        public String callOrders() {
            return entries.ordersTransactionName();
        }
    }
}
