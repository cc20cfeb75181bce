package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Requests in progress first under JpaTransactionManager: a request that committed a JPA operation (on any workload)
 * is served before a new request that waited longer, in workload {@code scheduled} (B = 1, Q = 2,
 * {@code criticality.in-progress-first}).
 */
@SpringBootTest(classes = JpaTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {
        "db.bulkhead.workloads.scheduled.max-concurrent=1", "db.bulkhead.workloads.scheduled.max-queued=2",
        "db.bulkhead.workloads.scheduled.queue-wait=1m",
        "db.bulkhead.workloads.scheduled.criticality.in-progress-first=true"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class InProgressFirstUnderJpaTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    BulkheadRegistry bulkheads;

    @Autowired
    EntityManager entityManager;

    @Test
    void aRequestThatCommittedAJpaOperationIsServedBeforeANewRequestThatWaitedLonger() throws Exception {
        BulkheadTemplate scheduled = bulkheads.template("scheduled");
        AdmissionGate gate = scheduled.gate();
        String name = "in-progress-" + UUID.randomUUID();
        List<String> served = new CopyOnWriteArrayList<>();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        Thread holder = Thread.ofVirtual().start(() -> scheduled.executeWithoutResult(status -> {
            entityManager.persist(new Customer(name));
            served.add("holder");
            holding.countDown();
            await(release);
        }));
        holding.await();
        Thread newRequest = Thread.ofVirtual().start(() -> {
            try (RequestCommits.Scope request = RequestCommits.track()) {
                scheduled.executeWithoutResult(status -> {
                    entityManager.persist(new Customer(name));
                    served.add("new request");
                });
            }
        });
        Await.until("the new request queued", () -> gate.queueLength() == 1);
        Thread inProgress = Thread.ofVirtual().start(() -> {
            try (RequestCommits.Scope request = RequestCommits.track()) {
                bulkheads.template("shop").executeWithoutResult(status -> entityManager.persist(new Customer(name)));
                scheduled.executeWithoutResult(status -> {
                    entityManager.persist(new Customer(name));
                    served.add("request in progress");
                });
            }
        });
        Await.until("the request in progress queued", () -> gate.queueLength() == 2);

        release.countDown();
        for (Thread thread : List.of(holder, newRequest, inProgress)) {
            thread.join();
        }

        assertThat(served).containsExactly("holder", "request in progress", "new request");
        assertThat(bulkheads.template("shop").<Long>execute(status -> entityManager
                .createQuery("SELECT count(c) FROM Customer c WHERE c.name = :name", Long.class)
                .setParameter("name", name).getSingleResult())).as("every operation committed").isEqualTo(4L);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
