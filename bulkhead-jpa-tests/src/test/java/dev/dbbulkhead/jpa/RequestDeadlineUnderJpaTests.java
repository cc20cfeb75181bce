package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.gate.RequestDeadline;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A request's deadline under JpaTransactionManager, for a workload without timeouts of its own: what is left of it
 * becomes the timeout of the entity manager's transaction, which Spring applies to each query it creates, so that
 * Hibernate's statements end with the request's time.
 */
@SpringBootTest(classes = JpaTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RequestDeadlineUnderJpaTests {

    private static final Duration REQUEST_BUDGET = Duration.ofMillis(300);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    BulkheadRegistry bulkheads;

    @Autowired
    EntityManager entityManager;

    @Autowired
    EntityManagerFactory entityManagerFactory;

    @Test
    void whatIsLeftOfTheRequestBecomesTheEntityManagersTransactionTimeout() {
        long timeToLive;
        try (RequestDeadline.Scope request = RequestDeadline.in(REQUEST_BUDGET).bind()) {
            timeToLive = bulkheads.template("shop").execute(status -> ((EntityManagerHolder)
                    TransactionSynchronizationManager.getResource(entityManagerFactory)).getTimeToLiveInMillis());
        }

        assertThat(timeToLive).as("no more than the request's budget").isPositive()
                .isLessThanOrEqualTo(REQUEST_BUDGET.toMillis());
    }

    @Test
    void aHibernateQueryOutlastingTheRequestIsEndedByItsDeadline() {
        DeadlineExceededException exceeded;
        try (RequestDeadline.Scope request = RequestDeadline.in(REQUEST_BUDGET).bind()) {
            exceeded = catchThrowableOfType(DeadlineExceededException.class,
                    () -> bulkheads.template("shop").execute(status ->
                            entityManager.createNativeQuery("SELECT pg_sleep(60)").getSingleResult()));
        }

        assertThat(exceeded).as("the minute-long query ended by the request's deadline").isNotNull();
        assertThat(exceeded.workload()).isEqualTo("shop");
    }
}
