package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import jakarta.persistence.EntityManager;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A request's committed operations counted under JpaTransactionManager: two operations that persist an entity each
 * commit, the third is refused (every place of workload {@code shop} held, its queue wait spent), and the refusal
 * says that two had committed — as the database does.
 */
@SpringBootTest(classes = JpaTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RequestCommitsUnderJpaTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    BulkheadRegistry bulkheads;

    @Autowired
    EntityManager entityManager;

    @Test
    void aRefusalAfterTwoCommittedJpaOperationsOfTheRequestSaysTwoHadCommitted() throws Exception {
        BulkheadTemplate shop = bulkheads.template("shop");
        String name = "part-done-" + UUID.randomUUID();
        BulkheadRejectedException refused;
        try (RequestCommits.Scope request = RequestCommits.track()) {
            shop.executeWithoutResult(status -> entityManager.persist(new Customer(name)));
            shop.executeWithoutResult(status -> entityManager.persist(new Customer(name)));
            try (FullGate full = FullGate.of(shop)) {
                refused = catchThrowableOfType(BulkheadRejectedException.class,
                        () -> shop.executeWithoutResult(status -> entityManager.persist(new Customer(name))));
            }
        }

        assertThat(refused).isNotNull();
        assertThat(refused.committedBefore()).isEqualTo(2);
        assertThat(shop.<Long>execute(status -> entityManager
                .createQuery("SELECT count(c) FROM Customer c WHERE c.name = :name", Long.class)
                .setParameter("name", name).getSingleResult())).isEqualTo(2L);
    }

    @Test
    void aRolledBackJpaOperationIsNotCounted() throws Exception {
        BulkheadTemplate shop = bulkheads.template("shop");
        BulkheadRejectedException refused;
        try (RequestCommits.Scope request = RequestCommits.track()) {
            shop.executeWithoutResult(status -> {
                entityManager.persist(new Customer("rolled-back-" + UUID.randomUUID()));
                status.setRollbackOnly();
            });
            try (FullGate full = FullGate.of(shop)) {
                refused = catchThrowableOfType(BulkheadRejectedException.class,
                        () -> shop.executeWithoutResult(status -> entityManager.flush()));
            }
        }

        assertThat(refused.committedBefore()).isZero();
    }
}
