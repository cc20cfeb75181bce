package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The application closed while a JPA transaction runs in workload {@code shop} (B = 1, Q = 1): the gate refuses the
 * next entry as {@code SHUTTING_DOWN} before any transaction begins, and the running one commits before the pool
 * closes.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class ShutdownUnderJpaTests {

    @Test
    void aJpaTransactionRunningAtShutdownCommitsWhileTheNextEntryIsRefusedBeforeItsTransactionBegins()
            throws Exception {
        List<String> arguments = new ArrayList<>(List.of("--spring.main.web-application-type=none",
                "--db.bulkhead.workloads.shop.max-concurrent=1", "--db.bulkhead.workloads.shop.max-queued=1",
                "--db.bulkhead.workloads.shop.queue-wait=1m", "--spring.lifecycle.timeout-per-shutdown-phase=1m"));
        JpaTestDatabase.register((name, value) -> arguments.add("--" + name + "=" + value.get()));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ShutdownApplication.class)
                .run(arguments.toArray(String[]::new));
        assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
        CustomerRepository customers = context.getBean(CustomerRepository.class);
        ShopApplicationTests.Shop shop = context.getBean(ShopApplicationTests.Shop.class);
        BulkheadTemplate template = context.getBean(BulkheadRegistry.class).template("shop");
        CountDownLatch saved = new CountDownLatch(1);
        CountDownLatch mayCommit = new CountDownLatch(1);
        CompletableFuture<Long> running = CompletableFuture.supplyAsync(() -> template.execute(status -> {
            Customer customer = customers.save(new Customer("saved-while-shutting-down"));
            saved.countDown();
            awaitUninterruptibly(mayCommit);
            return customer.getId();
        }), command -> Thread.ofVirtual().start(command));
        saved.await();

        Thread closing = Thread.ofPlatform().name("closing").start(context::close);
        Await.until("the gate shuts down", () -> template.gate().isShuttingDown());

        BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class,
                () -> shop.place("refused-while-shutting-down", "book", 1));
        assertThat(refused.reason()).isEqualTo(RejectionReason.SHUTTING_DOWN);
        mayCommit.countDown();
        long id = running.get();
        closing.join();

        assertThat(template.gate().isDrained()).isTrue();
        assertThat(JpaTestDatabase.sideQuery("SELECT name FROM customer WHERE id = " + id))
                .isEqualTo("saved-while-shutting-down");
        assertThat(JpaTestDatabase.sideQuery(
                "SELECT count(*) FROM customer WHERE name = 'refused-while-shutting-down'")).isEqualTo("0");
    }

    /** The shop's entities, repositories and entry bean, and nothing else of this package's tests. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(basePackageClasses = CustomerRepository.class)
    @Import(ShopApplicationTests.Shop.class)
    static class ShutdownApplication {
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
