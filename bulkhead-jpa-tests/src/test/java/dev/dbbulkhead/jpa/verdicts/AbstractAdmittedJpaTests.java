package dev.dbbulkhead.jpa.verdicts;

import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.jpa.shop.PurchaseOrderRepository;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.CommitFaults;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.persistence.EntityManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * The one JPA application context of the verdict and limit tests (Boot's JPA defaults, one pool), with a workload
 * per kind of limit: {@code plain} (none), {@code statement} (statement-timeout 100 ms), {@code lock} (lock-timeout
 * 100 ms), {@code deadlined} (deadline 300 ms) and {@code bounded} (transaction.timeout 2 s, deadline 30 s).
 */
@SpringBootTest(classes = {JpaTestApplication.class, AbstractAdmittedJpaTests.Beans.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
                "db.bulkhead.workloads.plain.max-concurrent=2",
                "db.bulkhead.workloads.statement.max-concurrent=1",
                "db.bulkhead.workloads.statement.statement-timeout=100ms",
                "db.bulkhead.workloads.lock.max-concurrent=1",
                "db.bulkhead.workloads.lock.lock-timeout=100ms",
                "db.bulkhead.workloads.deadlined.max-concurrent=1",
                "db.bulkhead.workloads.deadlined.deadline=300ms",
                "db.bulkhead.workloads.bounded.max-concurrent=1",
                "db.bulkhead.workloads.bounded.deadline=30s",
                "db.bulkhead.workloads.bounded.transaction.timeout=2s"})
@Timeout(60)
abstract class AbstractAdmittedJpaTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    CustomerRepository customers;

    @Autowired
    PurchaseOrderRepository orders;

    @Autowired
    EntityManager entityManager;

    @Autowired
    ApplicationEventPublisher events;

    @Autowired
    FailingCommits commitFaults;

    @Autowired
    MeterRegistry meters;

    @Autowired
    DataSource dataSource;

    /** The first column of the first row of {@code sql}, read on a connection outside the application. */
    static String sideQuery(String sql) {
        return JpaTestDatabase.sideQuery(sql);
    }

    /** How many operations of {@code workload} ended with {@code outcome}, by the execution timer. */
    double executions(String workload, String outcome) {
        Timer timer = meters.find("db.bulkhead.execution").tag("workload", workload).tag("outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    static void endBackendAndWaitUntilGone(int backend) {
        JpaTestDatabase.DATABASE.execute("SELECT pg_terminate_backend(" + backend + ")");
        Await.until("backend " + backend + " gone",
                () -> sideQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + backend).equals("0"));
    }

    static SQLException sqlExceptionIn(Throwable thrown) {
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql;
            }
        }
        throw new AssertionError("No SQLException in the cause chain of " + thrown, thrown);
    }

    /** An event whose BEFORE_COMMIT listener refuses the transaction. */
    record Refusal(String reason) {
    }

    /** What the listener throws. */
    static final class RefusedByListener extends RuntimeException {

        private static final long serialVersionUID = 1L;

        RefusedByListener(String message) {
            super(message);
        }
    }

    /** Refuses, before the commit, every transaction that publishes a {@link Refusal}. */
    static class RefusingListener {

        @TransactionalEventListener(phase = TransactionPhase.BEFORE_COMMIT)
        void refuse(Refusal refusal) {
            throw new RefusedByListener(refusal.reason());
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        RefusingListener refusingListener() {
            return new RefusingListener();
        }

        @Bean
        static FailingCommits failingCommits() {
            return new FailingCommits();
        }
    }

    /** Wraps the application's data source so that a test can make its next JDBC commit fail. */
    static final class FailingCommits implements BeanPostProcessor {

        private CommitFaults faults;

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (bean instanceof DataSource dataSource && beanName.equals("dataSource")) {
                faults = new CommitFaults(dataSource);
                return faults.dataSource();
            }
            return bean;
        }

        void failNextCommit(String sqlState) {
            faults.failNextCommit(sqlState);
        }
    }
}
