package dev.dbbulkhead.jpa.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.FullGate;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.transaction.BulkheadRegistry;
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
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
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
    void aRepositoryThatIsAlsoTransactionalFailsStartUp() {
        runner.withUserConfiguration(TransactionalRepositoryApplication.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(JpaStartUp.report(context.getStartupFailure()))
                    .contains("RepositoryEntryStartUpTests$TransactionalCustomers.", "@DbBulkhead(\"shop\")",
                            "is also transactional");
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
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = StreamingCustomers.class))
    static class StreamingRepositoryApplication {
    }

    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(considerNestedRepositories = true, basePackageClasses = RepositoryEntryStartUpTests.class,
            includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = GatedCustomers.class))
    static class GatedRepositoryApplication {
    }
}
