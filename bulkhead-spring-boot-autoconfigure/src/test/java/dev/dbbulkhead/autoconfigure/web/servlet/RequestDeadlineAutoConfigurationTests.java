package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.web.servlet.RequestDeadlineFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class RequestDeadlineAutoConfigurationTests {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    BulkheadWebMvcAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2");

    @Test
    void withNothingConfiguredNoRequestHasADeadlineAndNoFilterLooks() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RequestDeadlineFilter.class));
    }

    @Test
    void aHeaderABudgetOrAPathBudgetEachBringsTheFilter() {
        web.withPropertyValues("db.bulkhead.request-deadline.headers.grpc-timeout=grpc-timeout")
                .run(context -> assertThat(context).hasSingleBean(RequestDeadlineFilter.class));
        web.withPropertyValues("db.bulkhead.request-deadline.budget=2s")
                .run(context -> assertThat(context).hasSingleBean(RequestDeadlineFilter.class));
        web.withPropertyValues("db.bulkhead.request-deadline.paths[0].pattern=/reports/**",
                        "db.bulkhead.request-deadline.paths[0].budget=5s")
                .run(context -> assertThat(context).hasSingleBean(RequestDeadlineFilter.class));
    }

    @Test
    void aBudgetThatIsNotPositiveFailsStartUpNamingTheProperty() {
        web.withPropertyValues("db.bulkhead.request-deadline.budget=0s").run(context -> assertThat(context)
                .getFailure().rootCause().isInstanceOf(BulkheadConfigurationException.class)
                .hasMessageContaining("'db.bulkhead.request-deadline.budget'").hasMessageContaining("'0s'")
                .hasMessageContaining("a positive duration"));
    }

    @Test
    void aPathEntryWithoutAPatternOrWithABadOneFailsStartUpNamingItsIndex() {
        web.withPropertyValues("db.bulkhead.request-deadline.paths[0].budget=5s").run(context -> assertThat(context)
                .getFailure().rootCause().hasMessageContaining("'db.bulkhead.request-deadline.paths[0].pattern'"));
        web.withPropertyValues("db.bulkhead.request-deadline.paths[0].pattern=/reports/**",
                        "db.bulkhead.request-deadline.paths[0].budget=5s",
                        "db.bulkhead.request-deadline.paths[1].pattern=/a/**/b/**",
                        "db.bulkhead.request-deadline.paths[1].budget=1s")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("'db.bulkhead.request-deadline.paths[1].pattern'"));
    }
}
