package dev.dbbulkhead.jpa.verdicts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.Session;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Statement timeout, lock timeout and deadline reach the JDBC connection of a {@code JpaTransactionManager}
 * transaction, and a deadline never lengthens a shorter transaction timeout.
 */
@DisplayName("Limits of admitted transactions under JpaTransactionManager (Hibernate, real PostgreSQL)")
class JpaTransactionLimitsTests extends AbstractAdmittedJpaTests {

    @Autowired
    @Qualifier("statement")
    BulkheadTemplate statementTimeout;

    @Autowired
    @Qualifier("deadlined")
    BulkheadTemplate deadlined;

    @Autowired
    @Qualifier("bounded")
    BulkheadTemplate bounded;

    @Autowired
    EntityManagerFactory entityManagerFactory;

    @Test
    @DisplayName("statement-timeout 100ms: a native pg_sleep(1) through the EntityManager ends with 57014 and a rollback")
    void statementTimeoutReachesNativeQueriesOfTheEntityManager() {
        double rolledBackBefore = executions("statement", "rolled_back");

        Throwable thrown = catchThrowable(() -> statementTimeout.executeWithoutResult(status -> {
            customers.save(new Customer("limited-by-statement-timeout"));
            entityManager.flush();
            entityManager.createNativeQuery("select pg_sleep(1)").getSingleResult();
        }));

        assertThat(sqlExceptionIn(thrown).getSQLState()).as("query_canceled").isEqualTo("57014");
        assertThat(thrown).as("the application's own limit, no deadline").isNotInstanceOf(DeadlineExceededException.class);
        assertThat(executions("statement", "rolled_back")).isEqualTo(rolledBackBefore + 1);
        assertThat(sideQuery("SELECT count(*) FROM customer WHERE name = 'limited-by-statement-timeout'"))
                .as("rolled back").isEqualTo("0");
    }

    @Test
    @DisplayName("deadline: its remainder caps statement_timeout, which ends a native query of the EntityManager")
    void deadlineReachesJpaQueriesThroughTheStatementTimeoutCap() {
        String[] capInside = new String[1];

        Throwable thrown = catchThrowable(() -> deadlined.executeWithoutResult(status -> {
            capInside[0] = (String) entityManager.createNativeQuery(
                    "SELECT setting FROM pg_settings WHERE name = 'statement_timeout'").getSingleResult();
            entityManager.createNativeQuery("select pg_sleep(5)").getSingleResult();
        }));

        assertThat(Long.parseLong(capInside[0])).as("at most the 300 ms deadline").isPositive().isLessThanOrEqualTo(300);
        assertThat(thrown).as("admitted, then out of its deadline").isInstanceOf(DeadlineExceededException.class);
        assertThat(sqlExceptionIn(thrown).getSQLState()).as("query_canceled").isEqualTo("57014");
    }

    @Test
    @DisplayName("transaction.timeout 2s with a 30s deadline: the 2 s apply, to Hibernate and to JDBC on the same connection")
    void deadlineNeverLengthensAShorterTransactionTimeout() {
        long[] timeToLive = new long[1];
        int[] hibernateTimeout = new int[1];

        bounded.executeWithoutResult(status -> {
            ConnectionHolder holder = (ConnectionHolder) TransactionSynchronizationManager.getResource(dataSource);
            timeToLive[0] = holder.getTimeToLiveInMillis();
            EntityManagerHolder transactional =
                    (EntityManagerHolder) TransactionSynchronizationManager.getResource(entityManagerFactory);
            hibernateTimeout[0] = transactional.getEntityManager().unwrap(Session.class).getTransaction().getTimeout();
        });

        assertThat(timeToLive[0]).as("JdbcTemplate's timeout in the JPA transaction").isPositive()
                .isLessThanOrEqualTo(2_000);
        assertThat(hibernateTimeout[0]).as("Hibernate's own transaction timeout, in seconds").isEqualTo(2);
    }
}
