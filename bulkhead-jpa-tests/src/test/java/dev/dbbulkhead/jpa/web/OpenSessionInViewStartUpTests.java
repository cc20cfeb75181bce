package dev.dbbulkhead.jpa.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.testing.TestDatabase;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code db.bulkhead.budget.mode=fail} stops start-up on open-session-in-view, naming the fix; with it off the same
 * application starts. The pool is sized to Σ B (workload shop, B=4), so that no other finding interferes.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class OpenSessionInViewStartUpTests {

    @Test
    void failModeRefusesToStartWithOpenSessionInViewAndNamesTheFix() {
        assertThatExceptionOfType(BulkheadConfigurationException.class)
                .isThrownBy(() -> start("spring.jpa.open-in-view=true").close())
                .withMessageContaining("OPEN_SESSION_IN_VIEW")
                .withMessageContaining("spring.jpa.open-in-view=false");
    }

    @Test
    void failModeStartsWithOpenSessionInViewOff() {
        try (ConfigurableApplicationContext context = start("spring.jpa.open-in-view=false")) {
            assertThat(context.isActive()).isTrue();
        }
    }

    private static ConfigurableApplicationContext start(String openInView) {
        TestDatabase database = JpaTestDatabase.DATABASE;
        // As arguments, so that they win over application.yml.
        return new SpringApplicationBuilder(ShopOnly.class).web(WebApplicationType.SERVLET)
                .run("--server.port=0", "--db.bulkhead.budget.mode=fail", "--" + openInView,
                        "--spring.datasource.hikari.maximum-pool-size=4", "--spring.jpa.hibernate.ddl-auto=none",
                        "--spring.datasource.url=" + database.server().jdbcUrl(),
                        "--spring.datasource.username=" + database.server().username(),
                        "--spring.datasource.password=" + database.server().password(),
                        "--spring.datasource.hikari.schema=" + database.schema(),
                        "--spring.jpa.properties.hibernate.default_schema=" + database.schema());
    }

    /**
     * The shop's entities and repositories with Boot's auto-configuration and nothing else: outside a test context
     * nothing leaves the test classes' own beans out of a component scan.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @AutoConfigurationPackage(basePackageClasses = Customer.class)
    static class ShopOnly {
    }
}
