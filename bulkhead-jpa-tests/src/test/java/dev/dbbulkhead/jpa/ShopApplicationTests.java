package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.jpa.shop.PurchaseOrderRepository;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

@SpringBootTest(classes = {JpaTestApplication.class, ShopApplicationTests.Shop.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE)
class ShopApplicationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    Shop shop;

    @Test
    void anAdmittedEntryRunsSpringDataRepositoriesInOneJpaTransactionWithLazyAssociations() {
        assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);

        long id = shop.place("ada", "book", 2);

        assertThat(shop.linesOf(id)).isEqualTo(1);
    }

    /** A non-transactional entry bean, as docs/reference/concepts.md asks: admission first, then one transaction. */
    @Service
    static class Shop {

        private final CustomerRepository customers;
        private final PurchaseOrderRepository orders;

        Shop(CustomerRepository customers, PurchaseOrderRepository orders) {
            this.customers = customers;
            this.orders = orders;
        }

        @DbBulkhead("shop")
        public long place(String customerName, String product, int quantity) {
            Customer customer = customers.save(new Customer(customerName));
            return orders.save(new PurchaseOrder(customer).addLine(product, quantity)).getId();
        }

        @DbBulkhead("shop")
        public int linesOf(long orderId) {
            // A lazy collection read inside the admitted transaction: it must load without a second connection.
            return orders.findById(orderId).orElseThrow().getLines().size();
        }
    }
}
