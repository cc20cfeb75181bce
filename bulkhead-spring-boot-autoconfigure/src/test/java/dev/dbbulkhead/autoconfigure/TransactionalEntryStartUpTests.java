package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** A whole application whose @DbBulkhead beans are transactional too, as SpringApplication starts it. */
class TransactionalEntryStartUpTests {

    @Test
    void aTransactionalDbBulkheadBeanWhoseTransactionCanBeTheAdmittedOneStarts() {
        try (ConfigurableApplicationContext context = application(ReadingApplication.class).run()) {
            assertThat(context.getBean(Reading.class).count()).isNotNegative();
        }
    }

    @Test
    void anApplicationWhoseDbBulkheadMethodsAskForNewTransactionsFailsToStartNamingEachOfThem() {
        Throwable failure = catchThrowable(() -> application(BrokenApplication.class).run().close());

        assertThat(failure).isNotNull();
        assertThat(FailureReports.report(failure)).contains(
                "has 2 @DbBulkhead declarations that cannot be admitted",
                "1. Method " + OrderService.class.getName() + ".",
                "2. Method " + OrderService.class.getName() + ".",
                "place(String)", "cancel(String)",
                "@DbBulkhead(\"orders\") and is also transactional with propagation REQUIRES_NEW",
                "Action: 1. Give TransactionalEntryStartUpTests.OrderService.",
                "propagation REQUIRED (the default), SUPPORTS or MANDATORY");
    }

    private static SpringApplicationBuilder application(Class<?> source) {
        return new SpringApplicationBuilder(source).web(WebApplicationType.NONE)
                .properties(SharedDatabase.dataSourceProperties());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(OrderService.class)
    static class BrokenApplication {
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    static class OrderService {
        @DbBulkhead("orders")
        public String place(String order) {
            return order;
        }

        @DbBulkhead("orders")
        public String cancel(String order) {
            return order;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Reading.class)
    static class ReadingApplication {
    }

    @DbBulkhead("orders")
    @Transactional(readOnly = true)
    static class Reading {

        private final JdbcTemplate jdbc;

        Reading(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        public int count() {
            return jdbc.queryForObject("SELECT count(*) FROM entries", Integer.class);
        }
    }
}
