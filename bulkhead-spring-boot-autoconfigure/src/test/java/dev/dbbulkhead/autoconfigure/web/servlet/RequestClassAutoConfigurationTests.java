package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.web.servlet.BulkheadKeyResolver;
import dev.dbbulkhead.web.servlet.RequestClassFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class RequestClassAutoConfigurationTests {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    BulkheadWebMvcAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2");

    @Test
    void withNothingConfiguredNoRequestIsClassifiedAndNoFilterLooks() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RequestClassFilter.class));
    }

    @Test
    void eitherHeaderOrAKeyResolverBeanBringsTheFilter() {
        web.withPropertyValues("db.bulkhead.request-class.criticality-header=X-Criticality")
                .run(context -> assertThat(context).hasSingleBean(RequestClassFilter.class));
        web.withPropertyValues("db.bulkhead.request-class.key-header=X-Tenant")
                .run(context -> assertThat(context).hasSingleBean(RequestClassFilter.class));
        web.withBean(BulkheadKeyResolver.class, BulkheadKeyResolver::principal)
                .run(context -> assertThat(context).hasSingleBean(RequestClassFilter.class));
    }

    @Test
    void aBlankHeaderNameFailsStartUpNamingTheProperty() {
        web.withPropertyValues("db.bulkhead.request-class.key-header= ").run(context -> assertThat(context)
                .getFailure().rootCause().isInstanceOf(BulkheadConfigurationException.class)
                .hasMessageContaining("'db.bulkhead.request-class.key-header'"));
    }

    @Test
    void keysFromThePrincipalBringTheFilter() {
        web.withPropertyValues("db.bulkhead.request-class.key-from-principal=true")
                .run(context -> assertThat(context).hasSingleBean(RequestClassFilter.class));
    }

    @Test
    void keysFromThePrincipalAndAKeyHeaderTogetherFailStartUpNamingBoth() {
        web.withPropertyValues("db.bulkhead.request-class.key-from-principal=true",
                "db.bulkhead.request-class.key-header=X-Tenant").run(context -> assertThat(context)
                .getFailure().rootCause().isInstanceOf(BulkheadConfigurationException.class)
                .hasMessageContaining("'db.bulkhead.request-class.key-header'")
                .hasMessageContaining("key-from-principal"));
    }

    @Test
    void aKeylessKeyLongerThanAnyKeptFailsStartUpNamingTheProperty() {
        web.withPropertyValues("db.bulkhead.workloads.orders.fair-share.enabled=true",
                "db.bulkhead.workloads.orders.fair-share.keyless-key=" + "k".repeat(65)).run(context -> assertThat(context)
                .getFailure().rootCause().hasMessageContaining("fair-share.keyless-key"));
    }
}
