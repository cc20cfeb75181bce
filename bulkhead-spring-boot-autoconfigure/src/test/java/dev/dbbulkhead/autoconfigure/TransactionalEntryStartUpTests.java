package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.annotation.Transactional;

class TransactionalEntryStartUpTests {

    @Test
    void anApplicationWithATransactionalDbBulkheadBeanFailsToStartWithTheAnalyzersReport() {
        Throwable failure = catchThrowable(() -> new SpringApplicationBuilder(BrokenApplication.class)
                .web(WebApplicationType.NONE)
                .properties(SharedDatabase.dataSourceProperties())
                .run().close());

        assertThat(failure).isNotNull();
        assertThat(FailureReports.report(failure)).contains(
                "Method " + OrderService.class.getName() + ".place(String) of bean",
                "@DbBulkhead(\"orders\") and is also transactional",
                "Action: Remove @Transactional from TransactionalEntryStartUpTests.OrderService.place(String)");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(OrderService.class)
    static class BrokenApplication {
    }

    @Transactional
    static class OrderService {
        @DbBulkhead("orders")
        public String place(String order) {
            return order;
        }
    }
}
