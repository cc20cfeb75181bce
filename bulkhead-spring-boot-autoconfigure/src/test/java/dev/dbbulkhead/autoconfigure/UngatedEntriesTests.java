package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** {@code @DbBulkhead} methods never run without a transaction, whether the gates are off or cannot be built. */
class UngatedEntriesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(SharedDatabase.BOOT_JDBC)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    UngatedEntriesAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2");

    @Test
    void disabledMeansNoGateButStillOneTransactionPerCall() {
        runner.withPropertyValues(SharedDatabase.dataSourceProperties())
                .withPropertyValues("db.bulkhead.enabled=false")
                .withUserConfiguration(EntryConfiguration.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadRegistry.class);
                    Entries entries = context.getBean(Entries.class);

                    assertThat(entries.inTransaction()).isTrue();
                    assertThat(entries.readOnly()).as("@Transactional(readOnly = true), without a gate").isEqualTo("on");
                    Throwable failure = catchThrowable(() -> entries.writeTwiceThenFail(9101));

                    assertThat(failure).hasMessage("after two writes");
                    assertThat(entries.count(9101)).as("both writes rolled back, none half-done").isZero();
                });
    }

    @Test
    void disabledWithoutATransactionManagerForTheWorkloadFailsStartUpWithAReport() {
        runner.withPropertyValues("db.bulkhead.enabled=false")
                .withUserConfiguration(TwoDataSourcesNonePrimary.class, EntryConfiguration.class)
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure())).contains(
                        "Workload 'orders' has no transaction manager",
                        "would run without a transaction",
                        "Action: Set 'db.bulkhead.workloads.orders.transaction-manager'"));
    }

    @Test
    void annotatedBeansWithoutAnyTransactionManagerFailStartUpWithAReport() {
        runner.withUserConfiguration(TwoDataSourcesNonePrimary.class, EntryConfiguration.class)
                // The first annotated method found is reported; the JVM lists a class's methods in no set order.
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .containsPattern("Method " + Pattern.quote(Entries.class.getName())
                                + "\\.(inTransaction\\(\\)|writeTwiceThenFail\\(int\\)) of bean 'entries'")
                        .contains("@DbBulkhead(\"orders\"), but db-bulkhead could not set up its gates",
                                "DataSources [first, second] and transaction managers []",
                                "would run unadmitted and without a transaction",
                                "Action: Define a PlatformTransactionManager"));
    }

    @Test
    void withoutAnnotatedBeansAMissingTransactionManagerStillStartsAsBefore() {
        runner.withUserConfiguration(TwoDataSourcesNonePrimary.class)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadRegistry.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class EntryConfiguration {

        /** Writes through the first data source; with several, any of them shows the same. */
        @Bean
        Entries entries(List<DataSource> dataSources) {
            return new Entries(new JdbcTemplate(dataSources.get(0)));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSourcesNonePrimary {

        @Bean(destroyMethod = "close")
        HikariDataSource first() {
            return SharedDatabase.DATABASE.pool(1);
        }

        @Bean(destroyMethod = "close")
        HikariDataSource second() {
            return SharedDatabase.DATABASE.pool(1);
        }
    }

    static class Entries {

        private final JdbcTemplate jdbc;

        Entries(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DbBulkhead("orders")
        public boolean inTransaction() {
            return TransactionSynchronizationManager.isActualTransactionActive();
        }

        @DbBulkhead("orders")
        @Transactional(readOnly = true)
        public String readOnly() {
            return jdbc.queryForObject("SELECT current_setting('transaction_read_only')", String.class);
        }

        @DbBulkhead("orders")
        public void writeTwiceThenFail(int id) {
            jdbc.update("INSERT INTO entries VALUES (?)", id);
            jdbc.update("INSERT INTO entries VALUES (?)", id + 1);
            throw new IllegalStateException("after two writes");
        }

        int count(int id) {
            return jdbc.queryForObject("SELECT count(*) FROM entries WHERE id IN (?, ?)", Integer.class, id, id + 1);
        }
    }
}
