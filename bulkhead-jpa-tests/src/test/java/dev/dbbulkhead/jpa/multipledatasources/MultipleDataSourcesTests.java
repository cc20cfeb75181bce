package dev.dbbulkhead.jpa.multipledatasources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.jpa.shop.PurchaseOrderRepository;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two databases, two pools, two entity manager factories and two {@link JpaTransactionManager}s, with Spring Data
 * repositories on each: {@code orders} (primary) and {@code ledger}. Workloads name the ledger's transaction manager,
 * or its data source alone, or nothing (the primary).
 */
@SpringBootTest(classes = MultipleDataSourcesTests.TwoDatabaseApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.MOCK,
        properties = {
                "management.endpoints.web.exposure.include=dbbulkheads",
                "db.bulkhead.workloads.orders.max-concurrent=4",
                "db.bulkhead.workloads.ledger.max-concurrent=2",
                "db.bulkhead.workloads.ledger.transaction-manager=ledgerTransactionManager",
                "db.bulkhead.workloads.ledger.statement-timeout=5s",
                "db.bulkhead.workloads.ledger-by-data-source.max-concurrent=1",
                "db.bulkhead.workloads.ledger-by-data-source.data-source=ledgerDataSource"})
@DisplayName("Two DataSources, two JPA transaction managers, Spring Data repositories on each (real PostgreSQL)")
@Timeout(60)
class MultipleDataSourcesTests {

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    BulkheadsEndpoint endpoint;

    @Autowired
    ConnectionBudgetCheck budgetCheck;

    @Autowired
    @Qualifier("ordersDataSource")
    DataSource ordersDataSource;

    @Autowired
    @Qualifier("ledgerDataSource")
    DataSource ledgerDataSource;

    @Autowired
    @Qualifier("ledgerTransactionManager")
    PlatformTransactionManager ledgerTransactionManager;

    @Autowired
    Entries entries;

    @Test
    @DisplayName("a workload naming a JPA transaction manager gets its DataSource; the endpoint and the budget report that pool")
    void aWorkloadNamingAJpaTransactionManagerGetsItsDataSource() {
        assertThat(registry.template("ledger").dataSource()).containsSame(ledgerDataSource);
        assertThat(registry.template("orders").dataSource()).containsSame(ordersDataSource);
        assertThat(endpoint.workload("ledger").pool().dataSource()).isEqualTo("ledgerDataSource");
        assertThat(endpoint.workload("ledger").pool().name()).isEqualTo("ledger-pool");
        assertThat(endpoint.workload("ledger").pool().maximumSize()).isEqualTo(3);
        assertThat(endpoint.workload("orders").pool().name()).isEqualTo("orders-pool");
        assertThat(budgetCheck.report().orElseThrow().describe())
                .contains("pool 'ledger-pool': 3 connections; gated: ledger=2 + ledger-by-data-source=1 = 3")
                .contains("pool 'orders-pool': 4 connections; gated: orders=4 + shop=4 = 8"); // shop: application.yml
    }

    @Test
    @DisplayName("the ledger workload runs Spring Data repositories of the ledger database in its admitted transaction")
    void theLedgerWorkloadRunsTheLedgerRepositoriesInItsTransaction() throws SQLException {
        long id = entries.recordInLedger("ledger-1", 3);

        assertThat(entries.linesInLedger(id)).as("lazy lines loaded in the admitted transaction").isEqualTo(1);
        assertThat(count(TwoDatabases.LEDGER, "customer", "ledger-1")).isEqualTo(1);
        assertThat(count(TwoDatabases.ORDERS, "customer", "ledger-1")).isZero();
        Throwable failure = catchThrowable(() -> entries.recordInLedgerThenFail("ledger-rolled-back"));
        assertThat(failure).hasMessage("after the write");
        assertThat(count(TwoDatabases.LEDGER, "customer", "ledger-rolled-back")).as("rolled back").isZero();
    }

    @Test
    @DisplayName("REQUIRED on the second transaction manager inside the admitted region is legal: both databases written")
    void requiredOnTheSecondTransactionManagerInsideTheAdmittedRegionIsLegal() throws SQLException {
        entries.placeOrderAndRecordInLedger("both");

        assertThat(count(TwoDatabases.ORDERS, "customer", "both")).isEqualTo(1);
        assertThat(count(TwoDatabases.LEDGER, "customer", "both")).isEqualTo(1);
    }

    @Test
    @DisplayName("data-source set alone resolves the JPA transaction manager of that DataSource; its repositories join")
    void aDataSourceNamedAloneGetsItsJpaTransactionManager() throws SQLException {
        assertThat(registry.template("ledger-by-data-source").transactionManager()).isSameAs(ledgerTransactionManager);
        assertThat(registry.template("ledger-by-data-source").dataSource()).containsSame(ledgerDataSource);

        entries.recordInLedgerByDataSource("by-data-source");

        assertThat(count(TwoDatabases.LEDGER, "customer", "by-data-source")).isEqualTo(1);
    }

    @Test
    @DisplayName("REQUIRES_NEW on the admitted transaction's own manager stays misuse, before a second connection")
    void requiresNewOnTheAdmittedManagerStaysMisuse() {
        Throwable thrown = catchThrowable(() -> entries.requiresNewInsideTheLedgerWorkload());

        assertThat(thrown).isInstanceOfSatisfying(BulkheadMisuseException.class,
                misuse -> assertThat(misuse.kind()).isEqualTo(MisuseKind.SUSPENDING_PROPAGATION));
    }

    private static int count(String database, String table, String name) throws SQLException {
        try (Connection side = TwoDatabases.connect(database); Statement statement = side.createStatement();
             ResultSet rs = statement.executeQuery("SELECT count(*) FROM " + table + " WHERE name = '" + name + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Non-transactional entries, one workload each, calling the repositories of one database or both. */
    @Service
    static class Entries {

        private final CustomerRepository customers;
        private final PurchaseOrderRepository orders;
        private final LedgerCustomers ledgerCustomers;
        private final LedgerOrders ledgerOrders;
        private final TransactionTemplate requiresNewOnTheLedger;

        Entries(CustomerRepository customers, PurchaseOrderRepository orders, LedgerCustomers ledgerCustomers,
                LedgerOrders ledgerOrders, @Qualifier("ledgerTransactionManager") PlatformTransactionManager ledger) {
            this.customers = customers;
            this.orders = orders;
            this.ledgerCustomers = ledgerCustomers;
            this.ledgerOrders = ledgerOrders;
            this.requiresNewOnTheLedger = new TransactionTemplate(ledger);
            this.requiresNewOnTheLedger.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        }

        @DbBulkhead("ledger")
        public long recordInLedger(String name, int quantity) {
            Customer customer = ledgerCustomers.save(new Customer(name));
            return ledgerOrders.save(new PurchaseOrder(customer).addLine("ledger entry", quantity)).getId();
        }

        @DbBulkhead("ledger")
        public int linesInLedger(long orderId) {
            return ledgerOrders.findById(orderId).orElseThrow().getLines().size();
        }

        @DbBulkhead("ledger")
        public void recordInLedgerThenFail(String name) {
            ledgerCustomers.saveAndFlush(new Customer(name));
            throw new IllegalStateException("after the write");
        }

        @DbBulkhead("orders")
        public void placeOrderAndRecordInLedger(String name) {
            orders.save(new PurchaseOrder(customers.save(new Customer(name))).addLine("book", 1));
            // Spring Data's own @Transactional(REQUIRED) on the ledger's transaction manager: a second resource.
            ledgerCustomers.save(new Customer(name));
        }

        @DbBulkhead("ledger-by-data-source")
        public void recordInLedgerByDataSource(String name) {
            ledgerCustomers.save(new Customer(name));
        }

        @DbBulkhead("ledger")
        public void requiresNewInsideTheLedgerWorkload() {
            ledgerCustomers.save(new Customer("requires-new-outer"));
            requiresNewOnTheLedger.executeWithoutResult(status -> {
                throw new AssertionError("the inner transaction must not begin");
            });
        }
    }

    /** Repositories of the ledger database, on the same entities as the orders database. */
    interface LedgerCustomers extends JpaRepository<Customer, Long> {
    }

    interface LedgerOrders extends JpaRepository<PurchaseOrder, Long> {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OrdersDatabase.class, LedgerDatabase.class, LedgerTransactions.class, Entries.class})
    static class TwoDatabaseApplication {
    }

    static LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource, String unit) {
        LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
        factory.setPersistenceUnitName(unit);
        factory.setDataSource(dataSource);
        factory.setPackagesToScan(Customer.class.getPackageName());
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        factory.setJpaPropertyMap(Map.of("hibernate.hbm2ddl.auto", "create"));
        return factory;
    }

    /** The primary database: Spring Data's repositories of the shop package. */
    @Configuration(proxyBeanMethods = false)
    @EnableJpaRepositories(basePackageClasses = CustomerRepository.class,
            entityManagerFactoryRef = "ordersEntityManagerFactory", transactionManagerRef = "ordersTransactionManager")
    static class OrdersDatabase {

        @Bean(destroyMethod = "close")
        @Primary
        HikariDataSource ordersDataSource() {
            return TwoDatabases.pool(TwoDatabases.ORDERS, "orders-pool", 4);
        }

        @Bean
        @Primary
        LocalContainerEntityManagerFactoryBean ordersEntityManagerFactory(
                @Qualifier("ordersDataSource") DataSource dataSource) {
            return entityManagerFactory(dataSource, "orders");
        }

        @Bean
        @Primary
        JpaTransactionManager ordersTransactionManager(
                @Qualifier("ordersEntityManagerFactory") EntityManagerFactory factory) {
            return new JpaTransactionManager(factory);
        }
    }

    /** The second database, on which JPA works. */
    @Configuration(proxyBeanMethods = false)
    static class LedgerDatabase {

        @Bean(destroyMethod = "close")
        HikariDataSource ledgerDataSource() {
            return TwoDatabases.pool(TwoDatabases.LEDGER, "ledger-pool", 3);
        }

        @Bean
        LocalContainerEntityManagerFactoryBean ledgerEntityManagerFactory(
                @Qualifier("ledgerDataSource") DataSource dataSource) {
            return entityManagerFactory(dataSource, "ledger");
        }
    }

    /** The second database's transaction manager and the nested ledger repositories. */
    @Configuration(proxyBeanMethods = false)
    @EnableJpaRepositories(basePackageClasses = MultipleDataSourcesTests.class, considerNestedRepositories = true,
            entityManagerFactoryRef = "ledgerEntityManagerFactory", transactionManagerRef = "ledgerTransactionManager")
    static class LedgerTransactions {

        @Bean
        JpaTransactionManager ledgerTransactionManager(
                @Qualifier("ledgerEntityManagerFactory") EntityManagerFactory factory) {
            return new JpaTransactionManager(factory);
        }
    }
}
