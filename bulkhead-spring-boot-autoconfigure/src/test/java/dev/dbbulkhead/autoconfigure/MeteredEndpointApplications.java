package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.actuate.endpoint.BulkheadEndpointAutoConfiguration;
import dev.dbbulkhead.autoconfigure.metrics.BulkheadMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Bulkheads on the shared schema with their meters in a registry the test reads and the endpoint exposed. */
final class MeteredEndpointApplications {

    private MeteredEndpointApplications() {
    }

    static ApplicationContextRunner runner(MeterRegistry meters) {
        return new ApplicationContextRunner()
                .with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                        BulkheadMetricsAutoConfiguration.class, BulkheadEndpointAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> meters)
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads");
    }
}
