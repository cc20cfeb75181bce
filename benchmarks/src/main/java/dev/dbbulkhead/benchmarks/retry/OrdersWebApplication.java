package dev.dbbulkhead.benchmarks.retry;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.web.servlet.BulkheadWebMvcAutoConfiguration;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.testing.TestDatabase;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the clients of the retry-amplification scenario call: {@code GET /orders} runs the transaction of
 * known cost ({@link BenchDatabase#sleepAndUpdate}) through the gate of workload {@value #WORKLOAD}, on Tomcat with
 * virtual threads, as a Spring MVC application with the starter would. A refusal is the starter's HTTP 503 with
 * Retry-After and a problem body. The auto-configurations are named rather than discovered, so the shaded
 * benchmarks jar needs no merged list of them.
 */
final class OrdersWebApplication implements AutoCloseable {

    static final String WORKLOAD = "orders";

    private final ConfigurableApplicationContext context;
    private final URI orders;

    private OrdersWebApplication(ConfigurableApplicationContext context) {
        this.context = context;
        this.orders = URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port")
                + "/orders");
    }

    /** Starts the application on a free port, its pool as large as B, its gate {@code budget}. */
    static OrdersWebApplication start(TestDatabase database, Budget budget, Duration hold) {
        Map<String, Object> properties = new HashMap<>(BenchDatabase.bootDataSource(database));
        properties.putAll(Map.of(
                "server.port", 0,
                "spring.threads.virtual.enabled", true,
                "logging.level.root", "warn",
                "spring.datasource.hikari.pool-name", "retry-amplification",
                "spring.datasource.hikari.maximum-pool-size", budget.maxConcurrent(),
                "spring.datasource.hikari.minimum-idle", budget.maxConcurrent(),
                "db.bulkhead.workloads." + WORKLOAD + ".max-concurrent", budget.maxConcurrent(),
                "db.bulkhead.workloads." + WORKLOAD + ".max-queued", budget.maxQueued(),
                "db.bulkhead.workloads." + WORKLOAD + ".queue-wait", budget.queueWait().toMillis() + "ms",
                "retry-amplification.hold-millis", hold.toMillis()));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(GatedOrders.class)
                .web(WebApplicationType.SERVLET)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties)
                .run();
        return new OrdersWebApplication(context);
    }

    /** Where the clients send their requests. */
    URI orders() {
        return orders;
    }

    @Override
    public void close() {
        context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
            TransactionManagerCustomizationAutoConfiguration.class, TransactionAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class, TomcatServletWebServerAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
            HttpMessageConvertersAutoConfiguration.class, JacksonAutoConfiguration.class,
            BulkheadAutoConfiguration.class, BulkheadWebMvcAutoConfiguration.class})
    @Import(GatedOrders.Orders.class)
    static class GatedOrders {

        /** One admitted transaction a request; a full gate refuses it before it touches the pool. */
        @RestController
        static class Orders {

            private final BulkheadTemplate orders;
            private final JdbcTemplate jdbc;
            private final Duration hold;

            Orders(BulkheadRegistry registry, JdbcTemplate jdbc, @Value("${retry-amplification.hold-millis}") long hold) {
                this.orders = registry.template(WORKLOAD);
                this.jdbc = jdbc;
                this.hold = Duration.ofMillis(hold);
            }

            @GetMapping("/orders")
            Long order() {
                return orders.execute(status -> jdbc.execute(
                        (ConnectionCallback<Long>) connection -> BenchDatabase.sleepAndUpdate(connection, hold)));
            }
        }
    }
}
