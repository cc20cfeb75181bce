package dev.dbbulkhead.jpa.transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.FullGate;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.persistence.EntityManager;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.query.Param;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @DbBulkhead} beside {@code @Transactional} under JpaTransactionManager, on Spring Data repositories shaped
 * like PetClinic's ({@link PetClinicLikeApplication}): admission first, then one transaction with the attributes
 * Spring Data's own interceptor reads — the interface's, or {@code SimpleJpaRepository}'s for inherited methods —
 * which that interceptor joins. Workload {@code shop}: B=1, Q=0.
 */
@SpringBootTest(classes = TransactionalRepositoryTests.PetClinicLikeApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"db.bulkhead.workloads.shop.max-concurrent=1", "db.bulkhead.workloads.shop.max-queued=0",
                "db.bulkhead.workloads.limited.statement-timeout=100ms"})
// Declared here although @SpringBootTest declares it too: Boot's test scan filter then takes this for a test class.
@ExtendWith(SpringExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class TransactionalRepositoryTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    PetClinicLikeApplication.Customers customers;

    @Autowired
    PetClinicLikeApplication.Settings settings;

    @Autowired
    PetClinicLikeApplication.CustomersOfAnotherWorkload customersOfAnotherWorkload;

    @Autowired
    PetClinicLikeApplication.Loaders loaders;

    @Autowired
    PetClinicLikeApplication.BegunTransactions begun;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    MeterRegistry meters;

    @BeforeEach
    void underJpa() {
        assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
    }

    @Test
    void inheritedSaveAndFindAllAreAdmittedEachInOneTransactionOfSpringDatasOwnAttributes() throws Exception {
        assertRefusedAtAFullGate(() -> customers.save(new Customer("refused-save")));
        assertRefusedAtAFullGate(customers::findAll);

        List<String> transactions = begun.during(() -> {
            customers.save(new Customer("inherited"));
            return customers.findAll();
        });

        assertThat(transactions).containsExactly("bulkhead:shop read-write", "bulkhead:shop read-only");
        assertThat(customers.findByName("refused-save")).isEmpty();
    }

    @Test
    void oneInheritedMethodOfTwoRepositoriesIsAdmittedByEachRepositorysOwnWorkload() throws Exception {
        // Both calls are of the one method CrudRepository.count, on two repository proxies: each has its own entry.
        long counted = customers.count();
        customersOfAnotherWorkload.count();

        assertRefusedAtAFullGate(customers::count);
        try (FullGate shopFull = FullGate.of(registry.template("shop"))) {
            assertThat(customersOfAnotherWorkload.count()).as("admitted by 'limited' while 'shop' is full")
                    .isEqualTo(counted);
        }
    }

    @Test
    void aDerivedQueryAndAnAtQueryDeclaredReadOnlyAreAdmittedInOneReadOnlyTransactionEach() throws Exception {
        customers.save(new Customer("derived"));
        assertRefusedAtAFullGate(() -> customers.findByName("derived"));
        assertRefusedAtAFullGate(() -> customers.named("deri"));

        List<String> transactions = begun.during(() -> {
            assertThat(customers.findByName("derived")).hasSize(1);
            return customers.named("deri");
        });

        assertThat(transactions).containsExactly("bulkhead:shop read-only", "bulkhead:shop read-only");
    }

    @Test
    void aCacheHitInFrontOfAGatedRepositoryMethodTakesNoPermit() throws Exception {
        customers.save(new Customer("cached"));
        long counted = customers.countNamed("cached");
        double admittedBefore = admitted("shop");

        List<String> transactions = begun.during(() -> customers.countNamed("cached"));

        assertThat(admitted("shop")).as("admissions of the hit").isEqualTo(admittedBefore);
        assertThat(transactions).as("transactions of the hit").isEmpty();
        try (FullGate full = FullGate.of(registry.template("shop"))) {
            assertThat(customers.countNamed("cached")).isEqualTo(counted);
        }
    }

    @Test
    void aReadOnlyLoaderThatChangesAManagedEntityInMemoryIsNotFlushedAtCommit() {
        long id = customers.save(new Customer("loaded")).getId();

        assertThat(loaders.renameInMemoryReadOnlyByDbBulkhead(id).getName()).isEqualTo("changed in memory");
        assertThat(nameOf(id)).as("after @DbBulkhead(readOnly = true)").isEqualTo("loaded");

        assertThat(loaders.renameInMemoryReadOnlyByTransactional(id).getName()).isEqualTo("changed in memory");
        assertThat(nameOf(id)).as("after @Transactional(readOnly = true)").isEqualTo("loaded");

        loaders.renameInMemoryReadWrite(id);
        assertThat(nameOf(id)).as("the same change, read-write, is flushed").isEqualTo("changed in memory");
    }

    @Test
    void theWorkloadsStatementTimeoutAndTheRepositorysReadOnlyApplyToTheSameConnection() {
        assertThat(settings.statementTimeoutAndReadOnly()).isEqualTo("100ms on");
    }

    @Test
    void anOptimisticLockConflictAtFlushIsTheKnownRollbackItIsWithoutTransactional() {
        long orderId = loaders.newOrder("verdict");
        double rolledBackBefore = executions("shop", "rolled_back");

        assertThatThrownBy(() -> loaders.renameAfterAConcurrentUpdate(orderId, "lost"))
                .isInstanceOf(OptimisticLockingFailureException.class);

        assertThat(executions("shop", "rolled_back")).isEqualTo(rolledBackBefore + 1);
        assertThat(executions("shop", "unknown")).isZero();
        assertThat(JpaTestDatabase.sideQuery("SELECT status FROM purchase_order WHERE id = " + orderId))
                .isEqualTo("concurrent");
    }

    @Test
    void theRollbackRulesOfTransactionalDecide() {
        IOException checked = new IOException("rolls back by rollbackFor");
        IllegalStateException unchecked = new IllegalStateException("commits by noRollbackFor");

        assertThatThrownBy(() -> loaders.saveThenThrowRollingBack("rolled back", checked)).isSameAs(checked);
        assertThatThrownBy(() -> loaders.saveThenThrowCommitting("committed", unchecked)).isSameAs(unchecked);

        assertThat(customers.findByName("rolled back")).isEmpty();
        assertThat(customers.findByName("committed")).hasSize(1);
    }

    @Test
    void aGatedRepositoryCalledInsideAnActiveTransactionIsStillRefused() {
        TransactionTemplate outer = new TransactionTemplate(transactionManager);
        assertThatThrownBy(() -> outer.execute(status -> customers.findByName("inside")))
                .isInstanceOfSatisfying(BulkheadMisuseException.class,
                        refused -> assertThat(refused.kind()).isEqualTo(MisuseKind.ACTIVE_TRANSACTION));
    }

    /** With the only permit held, {@code call}, from another thread, is refused at once: it needed admission. */
    private void assertRefusedAtAFullGate(ThrowingSupplier<?> call) throws Exception {
        try (FullGate full = FullGate.of(registry.template("shop"));
             ExecutorService caller = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> refused = caller.submit(() -> {
                try {
                    return call.get();
                } catch (Throwable failure) {
                    return failure;
                }
            });
            assertThat(refused.get()).isInstanceOfSatisfying(BulkheadRejectedException.class,
                    rejected -> assertThat(rejected.reason()).isEqualTo(RejectionReason.ADMISSION_FULL));
        }
    }

    private double admitted(String workload) {
        Counter counter = meters.find("db.bulkhead.admitted").tag("workload", workload).counter();
        return counter == null ? 0 : counter.count();
    }

    private double executions(String workload, String outcome) {
        Timer timer = meters.find("db.bulkhead.execution").tag("workload", workload).tag("outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    private static String nameOf(long customerId) {
        return JpaTestDatabase.sideQuery("SELECT name FROM customer WHERE id = " + customerId);
    }


    /**
     * Repositories gated as a Spring PetClinic user gates them — {@code @DbBulkhead} on the interface, beside Spring
     * Data's {@code @Transactional(readOnly = true)} queries and a {@code @Cacheable} one — and loaders that read.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = PetClinicLikeApplication.class)
    @EnableCaching
    @Import({PetClinicLikeApplication.Loaders.class, PetClinicLikeApplication.BegunTransactions.class})
    static class PetClinicLikeApplication {

        @Bean
        CacheManager cacheManager() {
            return new ConcurrentMapCacheManager("customerCounts");
        }

        @DbBulkhead("shop")
        interface Customers extends JpaRepository<Customer, Long> {

            @Transactional(readOnly = true)
            List<Customer> findByName(String name);

            @Transactional(readOnly = true)
            @Query("select c from Customer c where c.name like concat(:prefix, '%')")
            List<Customer> named(@Param("prefix") String prefix);

            @Cacheable("customerCounts")
            @Transactional(readOnly = true)
            @Query("select count(c) from Customer c where c.name = :name")
            long countNamed(@Param("name") String name);
        }

        /** The customers again, gated by another workload: the same inherited methods, another gate. */
        @DbBulkhead("limited")
        interface CustomersOfAnotherWorkload extends JpaRepository<Customer, Long> {
        }

        @DbBulkhead("limited")
        @Transactional(readOnly = true)
        interface Settings extends Repository<Customer, Long> {

            @Query(value = "select current_setting('statement_timeout') || ' ' || current_setting('transaction_read_only')",
                    nativeQuery = true)
            String statementTimeoutAndReadOnly();
        }

        /** Loaders and entries of a service, each gated by "shop". */
        static class Loaders {

            private final EntityManager entityManager;

            Loaders(EntityManager entityManager) {
                this.entityManager = entityManager;
            }

            @DbBulkhead(value = "shop", readOnly = true)
            public Customer renameInMemoryReadOnlyByDbBulkhead(long id) {
                return renameInMemory(id);
            }

            @DbBulkhead("shop")
            @Transactional(readOnly = true)
            public Customer renameInMemoryReadOnlyByTransactional(long id) {
                return renameInMemory(id);
            }

            @DbBulkhead("shop")
            public Customer renameInMemoryReadWrite(long id) {
                return renameInMemory(id);
            }

            @DbBulkhead("shop")
            @Transactional
            public long newOrder(String customerName) {
                Customer customer = new Customer(customerName);
                entityManager.persist(customer);
                PurchaseOrder order = new PurchaseOrder(customer).addLine("pen", 1);
                entityManager.persist(order);
                return order.getId();
            }

            /** Loads the order, lets another writer change it, then changes it here: the flush at commit conflicts. */
            @DbBulkhead("shop")
            @Transactional
            public void renameAfterAConcurrentUpdate(long orderId, String status) {
                PurchaseOrder order = entityManager.find(PurchaseOrder.class, orderId);
                JpaTestDatabase.DATABASE.execute("UPDATE purchase_order SET version = version + 1, status = 'concurrent'"
                        + " WHERE id = " + orderId);
                order.setStatus(status);
            }

            @DbBulkhead("shop")
            @Transactional(rollbackFor = IOException.class)
            public void saveThenThrowRollingBack(String name, IOException failure) throws IOException {
                entityManager.persist(new Customer(name));
                entityManager.flush();
                throw failure;
            }

            @DbBulkhead("shop")
            @Transactional(noRollbackFor = IllegalStateException.class)
            public void saveThenThrowCommitting(String name, IllegalStateException failure) {
                entityManager.persist(new Customer(name));
                throw failure;
            }

            /** What a loader that prepares a form does to a managed entity, as PetClinic's adds a blank visit. */
            private Customer renameInMemory(long id) {
                Customer customer = entityManager.find(Customer.class, id);
                customer.setName("changed in memory");
                return customer;
            }
        }

        /** The transactions Boot's transaction manager begins, each as its name and read-only flag. */
        static class BegunTransactions implements TransactionExecutionListener {

            private final Queue<String> begun = new ConcurrentLinkedQueue<>();

            @Override
            public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
                begun.add(transaction.getTransactionName() + (transaction.isReadOnly() ? " read-only" : " read-write"));
            }

            /** The transactions begun while {@code calls} ran on this thread. */
            List<String> during(Supplier<?> calls) {
                begun.clear();
                calls.get();
                return new ArrayList<>(begun);
            }
        }
    }
}
