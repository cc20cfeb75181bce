package dev.dbbulkhead.jpa.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.FullGate;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Primary;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code @DbBulkhead} on Spring Data repository interfaces: the repository bean is a JDK proxy whose target class
 * (Spring Data's implementation) carries no annotation of the user's, and the start-up checks must see what the
 * advisor sees at run time.
 */
@Timeout(60)
class RepositoryEntryStartUpTests {

    private final ApplicationContextRunner runner = JpaStartUp.runner()
            .withPropertyValues("db.bulkhead.workloads.shop.max-concurrent=1", "db.bulkhead.workloads.shop.max-queued=0");

    @Test
    void aRepositoryAnnotatedWithAnUnknownWorkloadFailsStartUpNamingTheInterface() {
        runner.withUserConfiguration(MisnamedRepositoryApplication.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(JpaStartUp.report(context.getStartupFailure()))
                    .contains("RepositoryEntryStartUpTests$MisnamedCustomers.", "@DbBulkhead(\"shpo\")",
                            "no workload 'shpo' is configured", "Configured workloads: [shop]");
        });
    }

    @Test
    void aRepositoryQueryMethodAnnotatedWithAnUnknownWorkloadFailsStartUpNamingTheMethod() {
        runner.withUserConfiguration(MisnamedQueryApplication.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(JpaStartUp.report(context.getStartupFailure()))
                    .contains("RepositoryEntryStartUpTests$MisnamedQuery.findByName(String)",
                            "no workload 'shpo' is configured");
        });
    }

    @Test
    void aRepositoryThatIsAlsoTransactionalStartsAndIsGated() throws Exception {
        runner.withUserConfiguration(TransactionalRepositoryApplication.class).run(context -> {
            assertThat(context).hasNotFailed();
            TransactionalCustomers customers = context.getBean(TransactionalCustomers.class);
            try (ExecutorService caller = Executors.newVirtualThreadPerTaskExecutor();
                 FullGate held = FullGate.of(context.getBean(BulkheadRegistry.class).template("shop"))) {
                assertThatThrownBy(() -> caller.submit(() -> customers.findAll()).get())
                        .isInstanceOf(ExecutionException.class).cause()
                        .isInstanceOf(BulkheadRejectedException.class);
            }
        });
    }

    @Test
    void aRepositoryWhoseMethodsAskForNewTransactionsFailsStartUpNamingEveryOne() {
        runner.withUserConfiguration(RequiresNewRepositoryApplication.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(JpaStartUp.report(context.getStartupFailure())).contains(
                    "has 2 @DbBulkhead declarations that cannot be admitted",
                    "RepositoryEntryStartUpTests$RequiresNewCustomers.findByName(String)",
                    "RepositoryEntryStartUpTests$RequiresNewCustomers.countByName(String)",
                    "is also transactional with propagation REQUIRES_NEW");
        });
    }

    @Test
    void aRepositoryWhoseTransactionsRunInAnotherTransactionManagerFailsStartUpNamingIt() {
        runner.withUserConfiguration(OtherManagerRepositoryApplication.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(JpaStartUp.report(context.getStartupFailure())).contains(
                    "RepositoryEntryStartUpTests$OtherManagerCustomers.findAll()",
                    "Spring would run its transaction in 'ledgerTransactionManager' while workload 'shop' runs its"
                            + " transactions in 'transactionManager'",
                    "'db.bulkhead.workloads.shop.transaction-manager'");
        });
    }

    @Test
    void aRepositoryMethodReturningALazyStreamFailsStartUp() {
        runner.withUserConfiguration(StreamingRepositoryApplication.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(JpaStartUp.report(context.getStartupFailure()))
                    .contains("RepositoryEntryStartUpTests$StreamingCustomers.streamByName(String)",
                            "it returns a lazy Stream");
        });
    }

    @Test
    void aRepositoryWithAConfiguredWorkloadStartsDespiteSpringDatasOwnTransactionalImplementationAndIsGated()
            throws Exception {
        runner.withUserConfiguration(GatedRepositoryApplication.class).run(context -> {
            assertThat(context).hasNotFailed();
            GatedCustomers customers = context.getBean(GatedCustomers.class);
            try (ExecutorService caller = Executors.newVirtualThreadPerTaskExecutor()) {
                // B=1, Q=0: while another operation holds the only permit, a call must be refused.
                try (FullGate held = FullGate.of(context.getBean(BulkheadRegistry.class).template("shop"))) {
                    assertThatThrownBy(() -> caller.submit(() -> customers.save(new Customer("ada"))).get())
                            .isInstanceOf(ExecutionException.class).cause()
                            .isInstanceOfSatisfying(BulkheadRejectedException.class,
                                    rejected -> assertThat(rejected.reason()).isEqualTo(RejectionReason.ADMISSION_FULL));
                }
                caller.submit(() -> customers.save(new Customer("ada"))).get(30, TimeUnit.SECONDS);
                assertThat(caller.submit(() -> customers.findByName("ada")).get(30, TimeUnit.SECONDS)).hasSize(1);
            }
        });
    }

    @DbBulkhead("shpo")
    interface MisnamedCustomers extends JpaRepository<Customer, Long> {
    }

    interface MisnamedQuery extends JpaRepository<Customer, Long> {
        @DbBulkhead("shpo")
        List<Customer> findByName(String name);
    }

    @DbBulkhead("shop")
    @Transactional
    interface TransactionalCustomers extends JpaRepository<Customer, Long> {
    }

    @DbBulkhead("shop")
    interface RequiresNewCustomers extends JpaRepository<Customer, Long> {
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        List<Customer> findByName(String name);

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        long countByName(String name);
    }

    @DbBulkhead("shop")
    interface OtherManagerCustomers extends JpaRepository<Customer, Long> {
    }

    interface StreamingCustomers extends JpaRepository<Customer, Long> {
        @DbBulkhead("shop")
        Stream<Customer> streamByName(String name);
    }

    @DbBulkhead("shop")
    interface GatedCustomers extends JpaRepository<Customer, Long> {
        List<Customer> findByName(String name);
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = MisnamedCustomers.class))
    static class MisnamedRepositoryApplication {
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = MisnamedQuery.class))
    static class MisnamedQueryApplication {
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = TransactionalCustomers.class))
    static class TransactionalRepositoryApplication {
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = RequiresNewCustomers.class))
    static class RequiresNewRepositoryApplication {
    }

    /**
     * The repositories' transactions in a transaction manager of another data source, which Spring Data names by
     * bean name; the workload's is Boot's JPA one, kept primary.
     */
    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            transactionManagerRef = "ledgerTransactionManager",
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = OtherManagerCustomers.class))
    static class OtherManagerRepositoryApplication {

        @Bean
        @Primary
        JpaTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
            return new JpaTransactionManager(entityManagerFactory);
        }

        @Bean
        DataSourceTransactionManager ledgerTransactionManager() {
            return new DataSourceTransactionManager(new SingleConnectionDataSource());
        }
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = StreamingCustomers.class))
    static class StreamingRepositoryApplication {
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = GatedCustomers.class))
    static class GatedRepositoryApplication {
    }
}
