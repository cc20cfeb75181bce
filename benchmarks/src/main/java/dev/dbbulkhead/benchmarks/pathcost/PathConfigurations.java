package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.UngatedWorkAutoConfiguration;
import dev.dbbulkhead.autoconfigure.metrics.BulkheadMetricsAutoConfiguration;
import dev.dbbulkhead.autoconfigure.observation.BulkheadObservationAutoConfiguration;
import dev.dbbulkhead.autoconfigure.saturation.BulkheadDatabaseSignalsAutoConfiguration;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntToLongFunction;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import dev.dbbulkhead.gate.WorkloadBinding;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The applications of the user-path benchmark, each assembled from Spring Boot's own auto-configurations as an
 * application with the starter would be: HikariCP, {@code DataSourceTransactionManager}, {@code JdbcTemplate},
 * {@code @Transactional}, AOP, and Boot's metrics and observations — a simple meter registry and an
 * {@link ObservationRegistry} with Boot's default meter handler, which turns every observation it is offered into a
 * timer and a long-task timer. The auto-configurations are named rather than discovered, so the shaded benchmarks
 * jar needs no merged list of them.
 */
final class PathConfigurations {

    private PathConfigurations() {
    }

    /** {@code @Transactional} alone; the base of the others. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionManagerCustomizationAutoConfiguration.class,
            TransactionAutoConfiguration.class, JdbcTemplateAutoConfiguration.class, MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, ObservationAutoConfiguration.class})
    static class TransactionalApplication {

        @Bean
        Accounts accounts(JdbcTemplate jdbc) {
            return new Accounts(jdbc);
        }
    }

    /**
     * The starter's gate without its meters and observations, the base of the starter's applications. The pool is
     * watched for ungated work, as the starter does by default; {@code -Ddb.bulkhead.ungated.mode=off} on the
     * benchmark's JVM measures the {@code @DbBulkhead} paths without the watch,
     * {@code -Ddb.bulkhead.database.signals.enabled=true} with the database's sampler beside it.
     */
    @Configuration(proxyBeanMethods = false)
    @Import(TransactionalApplication.class)
    @ImportAutoConfiguration({BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class,
            BulkheadDatabaseSignalsAutoConfiguration.class})
    static class StarterGate {
    }

    /**
     * {@code @Transactional} alone on the starter's gate, admitted where its connection is taken: the properties name
     * workload {@code orders} the default workload, so that the watched pool admits every borrow made outside an
     * admitted operation by that gate, and the transaction's borrow holds a place until its connection is closed. No
     * {@code @DbBulkhead} bean: the call admitted is the one an application without the annotation makes. The
     * application's package is named so that a borrow's call site is the application's frame, as Spring Boot's
     * auto-configuration packages name it in an application, not a guess reported as one.
     */
    @Configuration(proxyBeanMethods = false)
    @Import(StarterGate.class)
    static class PoolAdmissionApplication {

        static final Map<String, Object> PROPERTIES = Map.of(
                "db.bulkhead.work.default-workload", "orders",
                "db.bulkhead.ungated.application-packages", PathConfigurations.class.getPackageName());
    }

    /** The starter's gate and a {@code @DbBulkhead} entry bean. */
    @Configuration(proxyBeanMethods = false)
    @Import(StarterGate.class)
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

    /**
     * The starter with its meters and observations, and a tracer: an observation handler that supports every
     * observation and does nothing with it, standing for a tracer's handlers without their own cost, so that what the
     * path adds over {@link StarterObservedApplication} is the observations' own.
     */
    @Configuration(proxyBeanMethods = false)
    @Import(StarterObservedApplication.class)
    static class StarterTracedApplication {

        @Bean
        StandInTracer standInTracer() {
            return new StandInTracer();
        }
    }

    /** The handler of {@link StarterTracedApplication}: sees every observation, counts those that stop. */
    static final class StandInTracer implements ObservationHandler<Observation.Context> {

        private final LongAdder stopped = new LongAdder();

        @Override
        public void onStop(Observation.Context context) {
            stopped.increment();
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        /** How many observations it has seen stop. */
        long stopped() {
            return stopped.sum();
        }
    }

    /** The entry method of the starter paths: the {@code @DbBulkhead} bean's. */
    static IntToLongFunction bulkheadedEntry(ApplicationContext context) {
        return context.getBean(BulkheadedOrders.class)::credit;
    }

    /** The {@code @Transactional} bean called with the workload bound to the thread, as an HTTP rule binds it. */
    static IntToLongFunction boundCall(ApplicationContext context) {
        Accounts accounts = context.getBean(Accounts.class);
        return account -> {
            try (WorkloadBinding.Scope bound = WorkloadBinding.bind("orders")) {
                return accounts.credit(account);
            }
        };
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
