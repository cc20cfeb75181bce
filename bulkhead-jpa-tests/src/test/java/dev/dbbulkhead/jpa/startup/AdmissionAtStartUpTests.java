package dev.dbbulkhead.jpa.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.UngatedWorkAutoConfiguration;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/**
 * Admission where connections are taken, from a JPA application's start-up on: a borrow made while the entity manager
 * factory is made — a customizer of its properties that reads a setting from the database — runs before the
 * workloads' gates open, so that asking for a gate never makes the workloads' templates, whose transaction manager
 * is the JPA one being made; and Boot's own look at the database for Hibernate's default ddl-auto is recognised
 * infrastructure.
 */
class AdmissionAtStartUpTests {

    /** Boot's JPA auto-configuration with ddl-auto left unset, as most applications leave it, and two workloads. */
    private static ApplicationContextRunner runner() {
        List<String> properties = new ArrayList<>();
        JpaTestDatabase.register((name, value) -> properties.add(name + "=" + value.get()));
        properties.addAll(List.of("db.bulkhead.workloads.web.max-concurrent=2",
                "db.bulkhead.workloads.other.max-concurrent=1", "db.bulkhead.work.default-workload=other"));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
                        BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new));
    }

    /** Reads a setting of Hibernate's from the database while the entity manager factory is made. */
    static class SettingsFromTheDatabase {

        @org.springframework.context.annotation.Bean
        org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer batchSizeFromTheDatabase(
                DataSource dataSource) {
            return properties -> {
                try (Connection connection = dataSource.getConnection();
                     var rows = connection.createStatement().executeQuery("SELECT 20")) {
                    rows.next();
                    properties.put("hibernate.jdbc.batch_size", rows.getInt(1));
                } catch (java.sql.SQLException failed) {
                    throw new IllegalStateException(failed);
                }
            };
        }
    }

    @Test
    void aJpaApplicationWhoseEntityManagerFactoryBorrowsWhileItIsMadeStartsAndItsLaterBorrowsAreAdmitted() {
        runner().withUserConfiguration(SettingsFromTheDatabase.class).run(context -> {
            assertThat(context).hasNotFailed();
            var report = context.getBean(WatchedPools.class).detectors().get(0).report();
            assertThat(report.recognised()).containsKey(
                    "org.springframework.boot.hibernate.autoconfigure.HibernateDefaultDdlAutoProvider");
            assertThat(report.connections()).as("the customizer's, before the gates opened").isOne();
            var other = context.getBean(BulkheadRegistry.class).template("other").gate();
            try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                assertThat(other.active()).as("once started, the default workload admits").isOne();
                assertThat(connection.isValid(1)).isTrue();
            }
            assertThat(other.active()).isZero();
            assertThat(context.getBean(WatchedPools.class).admissions().get("dataSource").classified())
                    .containsEntry("default other", 1L);
        });
    }
}
