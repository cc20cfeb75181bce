package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.UngatedWorkAutoConfiguration;
import dev.dbbulkhead.autoconfigure.metrics.BulkheadMetricsAutoConfiguration;
import dev.dbbulkhead.autoconfigure.observation.BulkheadObservationAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.function.IntToLongFunction;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The applications of the user-path benchmark, each assembled from Spring Boot's own auto-configurations as an
 * application with the starter would be: HikariCP, {@code DataSourceTransactionManager}, {@code JdbcTemplate},
 * {@code @Transactional}, AOP, a {@link SimpleMeterRegistry} and an {@link ObservationRegistry} whose handler
 * records every observation as meters. The auto-configurations are named rather than discovered, so the shaded
 * benchmarks jar needs no merged list of them.
 */
final class PathConfigurations {

    private PathConfigurations() {
    }

    /** {@code @Transactional} alone; the base of the others. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionManagerCustomizationAutoConfiguration.class,
            TransactionAutoConfiguration.class, JdbcTemplateAutoConfiguration.class})
    static class TransactionalApplication {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        /** Observations that really cost: each one is timed into the meter registry, as Boot's default handler does. */
        @Bean
        ObservationRegistry observationRegistry(MeterRegistry meters) {
            ObservationRegistry observations = ObservationRegistry.create();
            observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            return observations;
        }

        @Bean
        Accounts accounts(JdbcTemplate jdbc) {
            return new Accounts(jdbc);
        }
    }

    /**
     * The starter's gate without its meters and observations, and a {@code @DbBulkhead} entry bean. The pool is
     * watched for ungated work, as the starter does by default; {@code -Ddb.bulkhead.ungated.mode=off} on the
     * benchmark's JVM measures the path without the watch.
     */
    @Configuration(proxyBeanMethods = false)
    @Import(TransactionalApplication.class)
    @ImportAutoConfiguration({BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class})
    static class StarterApplication {

        @Bean
        BulkheadedOrders bulkheadedOrders(Accounts accounts) {
            return new BulkheadedOrders(accounts);
        }
    }

    /** The starter with its {@code db.bulkhead.*} meters. */
    @Configuration(proxyBeanMethods = false)
    @Import(StarterApplication.class)
    @ImportAutoConfiguration(BulkheadMetricsAutoConfiguration.class)
    static class StarterMetersApplication {
    }

    /** The starter with its meters and observations: what it gives an application with both registries. */
    @Configuration(proxyBeanMethods = false)
    @Import(StarterMetersApplication.class)
    @ImportAutoConfiguration(BulkheadObservationAutoConfiguration.class)
    static class StarterObservedApplication {
    }

    /** The entry method of the three starter paths: the {@code @DbBulkhead} bean's. */
    static IntToLongFunction bulkheadedEntry(ApplicationContext context) {
        return context.getBean(BulkheadedOrders.class)::credit;
    }

    /** Resilience4j's Spring Boot 4 auto-configuration of its bulkheads (aspect and meters) and an entry bean. */
    @Configuration(proxyBeanMethods = false)
    @Import(TransactionalApplication.class)
    @ImportAutoConfiguration({
            io.github.resilience4j.springboot.bulkhead.autoconfigure.BulkheadAutoConfiguration.class,
            io.github.resilience4j.springboot.bulkhead.autoconfigure.BulkheadMetricsAutoConfiguration.class})
    static class Resilience4jApplication {

        @Bean
        Resilience4jOrders resilience4jOrders(Accounts accounts) {
            return new Resilience4jOrders(accounts);
        }
    }
}
