package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.actuate.endpoint.WorkloadTotals;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.autoconfigure.actuate.endpoint.BulkheadEndpointAutoConfiguration;
import dev.dbbulkhead.web.servlet.BulkheadRejectedExceptionHandler;
import dev.dbbulkhead.web.servlet.BulkheadRejectionFilter;
import dev.dbbulkhead.web.servlet.BulkheadRejectionResolver;
import dev.dbbulkhead.web.servlet.RetryAfter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.DispatcherServlet;

/** The endpoint and the HTTP 503 handler appear only with what they need, and beans of the application win. */
class OptionalIntegrationConditionsTests {

    private static final AutoConfigurations BULKHEADS = AutoConfigurations.of(BulkheadAutoConfiguration.class,
            BulkheadEndpointAutoConfiguration.class, BulkheadWebMvcAutoConfiguration.class);

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(BULKHEADS)
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                    "management.endpoints.web.exposure.include=dbbulkheads");

    @Test
    void anExposedEndpointAndTheHandlerInASpringMvcApplication() {
        web.run(context -> assertThat(context).hasNotFailed()
                .hasSingleBean(BulkheadsEndpoint.class)
                .hasSingleBean(WorkloadTotals.class)
                .hasSingleBean(BulkheadRejectedExceptionHandler.class)
                .hasSingleBean(BulkheadRejectionResolver.class)
                .hasSingleBean(BulkheadRejectionFilter.class));
    }

    @Test
    void noEndpointWithoutTheActuatorOrWhenItIsNotExposedOrAccessible() {
        web.withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadsEndpoint.class)
                        .doesNotHaveBean(WorkloadTotals.class));
        web.withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).doesNotHaveBean(BulkheadsEndpoint.class)
                        .doesNotHaveBean(WorkloadTotals.class));
        web.withPropertyValues("management.endpoint.dbbulkheads.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(BulkheadsEndpoint.class));
    }

    @Test
    void noHandlerWithoutSpringMvcOrOutsideAServletApplication() {
        web.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(BulkheadRejectedExceptionHandler.class)
                        .doesNotHaveBean(BulkheadRejectionResolver.class)
                        .doesNotHaveBean(BulkheadRejectionFilter.class));
        new ApplicationContextRunner()
                .with(SharedDatabase::onBootJdbc)
                .withConfiguration(BULKHEADS)
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(BulkheadRejectedExceptionHandler.class));
    }

    @Test
    void theApplicationsOwnEndpointAndHandlerBeansWin() {
        BulkheadRejectedExceptionHandler ownHandler =
                new BulkheadRejectedExceptionHandler(Map.of(), new RetryAfter(7, 0));
        WorkloadTotals ownTotals = new WorkloadTotals();
        web.withBean(BulkheadRejectedExceptionHandler.class, () -> ownHandler)
                .withBean(WorkloadTotals.class, () -> ownTotals)
                .run(context -> {
                    assertThat(context).getBean(BulkheadRejectedExceptionHandler.class).isSameAs(ownHandler);
                    assertThat(context).getBean(WorkloadTotals.class).isSameAs(ownTotals);
                    assertThat(ownTotals.admitted("orders")).isZero();
                    assertThat(ownTotals.rejected("orders")).containsOnlyKeys("full", "timeout", "interrupted",
                            "insufficient_time", "criticality", "fair_share", "pushed_out", "borrow_refused", "shutting_down");
                });
    }
}
