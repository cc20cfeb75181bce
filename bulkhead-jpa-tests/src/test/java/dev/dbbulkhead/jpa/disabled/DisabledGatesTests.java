package dev.dbbulkhead.jpa.disabled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.jpa.shop.PurchaseOrderRepository;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code db.bulkhead.enabled=false} in a Spring Data JPA application: no gate, still one JPA transaction per call. */
@SpringBootTest(classes = {JpaTestApplication.class, DisabledGatesTests.Shop.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = "db.bulkhead.enabled=false")
@DisplayName("db.bulkhead.enabled=false under JpaTransactionManager (Hibernate, Spring Data, real PostgreSQL)")
@Timeout(60)
class DisabledGatesTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    Shop shop;

    @Autowired
    CustomerRepository customers;

    @Autowired
    ObjectProvider<BulkheadRegistry> registry;

    @Test
    @DisplayName("a failing @DbBulkhead method rolls back all its repository writes: no gate, never no transaction")
    void aFailingEntryRollsBackAllItsWrites() {
        assertThat(registry.getIfAvailable()).as("no gates").isNull();

        Throwable failure = catchThrowable(() -> shop.placeThenFail("half-done"));

        assertThat(failure).hasMessage("after the writes");
        assertThat(customers.findAll()).extracting(Customer::getName).doesNotContain("half-done");
    }

    @Test
    @DisplayName("lazy associations load inside the @DbBulkhead method, as in one transaction")
    void lazyAssociationsLoadInsideTheEntry() {
        shop.place("lazy");

        assertThat(shop.linesOrderedBy("lazy")).isEqualTo(1);
    }

    @Service
    static class Shop {

        private final CustomerRepository customers;
        private final PurchaseOrderRepository orders;

        Shop(CustomerRepository customers, PurchaseOrderRepository orders) {
            this.customers = customers;
            this.orders = orders;
        }

        @DbBulkhead("shop")
        public void placeThenFail(String name) {
            // Two writes, each flushed: without a transaction the first would stay when the method fails.
            orders.saveAndFlush(new PurchaseOrder(customers.saveAndFlush(new Customer(name))));
            throw new IllegalStateException("after the writes");
        }

        @DbBulkhead("shop")
        public void place(String name) {
            orders.save(new PurchaseOrder(customers.save(new Customer(name))).addLine("pen", 1));
        }

        @DbBulkhead("shop")
        public int linesOrderedBy(String name) {
            return orders.findByCustomerName(name).getFirst().getLines().size();
        }
    }
}
