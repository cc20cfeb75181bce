package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.jpa.shop.PurchaseOrderRepository;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@code limit.mode=adaptive} under Spring Data JPA on Hibernate: the limit learns from the hold times of JPA
 * transactions admitted by {@code @DbBulkhead} (lazy associations loaded inside them), one at a time. The loops run
 * until the state is reached; only the state is asserted.
 */
@SpringBootTest(classes = {JpaTestApplication.class, ShopApplicationTests.Shop.class,
        AdaptiveShopApplicationTests.Reports.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"db.bulkhead.workloads.shop.limit.mode=adaptive"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang
class AdaptiveShopApplicationTests {

    private static final int MAX_CONCURRENT = 4;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    AdaptiveLimits limits;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    ShopApplicationTests.Shop shop;

    @Autowired
    Reports reports;

    @Test
    void jpaTransactionsTeachTheLimitAndTheWorksOwnRollbacksDoNot() {
        assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
        AdaptiveLimit limit = limits.find("shop").orElseThrow();
        long order = shop.place("grace", "compiler", 1);

        while (limit.snapshot().noLoadNanos() == 0) {
            assertThat(shop.linesOf(order)).isEqualTo(1);
        }
        for (int i = 0; i < 30; i++) {
            assertThatIllegalStateException().isThrownBy(() -> reports.placeAndFail("alan", "tape"))
                    .withMessage("the work's own failure");
        }
        assertThat(limit.snapshot().observedNanos()).as("rolled-back transactions make no window").isZero();

        while (limit.snapshot().learnt() == MAX_CONCURRENT) {
            reports.busy();
        }
        assertThat(limit.snapshot().learnt()).isBetween(1, MAX_CONCURRENT - 1);
        assertThat(registry.template("shop").gate().config().maxConcurrent())
                .isEqualTo(limit.snapshot().concurrent());

        while (limit.snapshot().learnt() < MAX_CONCURRENT) {
            assertThat(shop.linesOf(order)).isEqualTo(1);
        }
        assertThat(registry.template("shop").gate().config().maxConcurrent()).isEqualTo(MAX_CONCURRENT);
        assertThat(reports.ordersOf("alan")).as("every failed placement rolled back").isZero();
    }

    /** More non-transactional entries of the same workload: a failing placement, a busy report. */
    @Service
    static class Reports {

        private final CustomerRepository customers;
        private final PurchaseOrderRepository orders;

        @PersistenceContext
        private EntityManager entityManager;

        Reports(CustomerRepository customers, PurchaseOrderRepository orders) {
            this.customers = customers;
            this.orders = orders;
        }

        /** Saves an order, then fails: the work's own exception rolls the transaction back. */
        @DbBulkhead("shop")
        public void placeAndFail(String customerName, String product) {
            orders.save(new PurchaseOrder(customers.save(new Customer(customerName))).addLine(product, 1));
            throw new IllegalStateException("the work's own failure");
        }

        /** Keeps the server busy thousands of times longer than a lookup by key. */
        @DbBulkhead("shop")
        public Object busy() {
            return entityManager.createNativeQuery("SELECT count(*) FROM generate_series(1, 300000)")
                    .getSingleResult();
        }

        @DbBulkhead("shop")
        public int ordersOf(String customerName) {
            return orders.findByCustomerName(customerName).size();
        }
    }
}
