package dev.dbbulkhead.jpa.advisors;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.FullGate;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.persistence.EntityManager;
import jakarta.validation.constraints.Min;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.validation.annotation.Validated;

/**
 * A JPA application whose gated bean also carries {@code @PreAuthorize}, {@code @Validated}, {@code @Cacheable} and
 * Spring's own {@code @Retryable}, each enabled as applications enable them. Workload {@code advised}: B=1, Q=0, so
 * that with its one permit held every admission is refused at once.
 */
@SpringBootTest(classes = {JpaTestApplication.class, AdvisedApplication.Advisors.class, AdvisedApplication.Clerk.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"db.bulkhead.workloads.advised.max-concurrent=1", "db.bulkhead.workloads.advised.max-queued=0"})
// Declared here although @SpringBootTest declares it too: Boot's test scan filter then takes this for a test class
// and leaves its nested beans out of every other test's component scan.
@ExtendWith(SpringExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
abstract class AdvisedApplication {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    Clerk clerk;

    @Autowired
    BulkheadRegistry registry;

    @AfterEach
    void signOut() {
        SecurityContextHolder.clearContext();
    }

    static void signIn(String role) {
        SecurityContextHolder.getContext().setAuthentication(UsernamePasswordAuthenticationToken.authenticated(
                "ada", "n/a", AuthorityUtils.createAuthorityList("ROLE_" + role)));
    }

    FullGate fullGate() throws InterruptedException {
        return FullGate.of(registry.template("advised"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableMethodSecurity
    @EnableCaching
    @EnableResilientMethods
    static class Advisors {

        @Bean
        CacheManager cacheManager() {
            return new ConcurrentMapCacheManager("counts");
        }
    }

    /** One gated entry per other advisor. */
    @Service
    @Validated
    static class Clerk {

        private final AtomicInteger retriedAttempts = new AtomicInteger();
        private final CustomerRepository customers;
        private final EntityManager entityManager;

        Clerk(CustomerRepository customers, EntityManager entityManager) {
            this.customers = customers;
            this.entityManager = entityManager;
        }

        @PreAuthorize("hasRole('CLERK')")
        @DbBulkhead("advised")
        public long guarded() {
            return customers.count();
        }

        @DbBulkhead("advised")
        public long validated(@Min(1) int quantity) {
            return customers.count() + quantity;
        }

        @Cacheable("counts")
        @DbBulkhead("advised")
        public long cached(String key) {
            return customers.count();
        }

        /** Read through the proxy, which has no state of its own. */
        public int retriedAttempts() {
            return retriedAttempts.get();
        }

        /** Its first attempt fails in the database, which aborts that attempt's transaction. */
        @Retryable(maxRetries = 1, delay = 0)
        @DbBulkhead("advised")
        public long retried() {
            if (retriedAttempts.incrementAndGet() == 1) {
                entityManager.createNativeQuery("select 1 / 0").getSingleResult();
            }
            return customers.count();
        }
    }
}
