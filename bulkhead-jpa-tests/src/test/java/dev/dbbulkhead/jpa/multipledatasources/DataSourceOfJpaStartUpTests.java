package dev.dbbulkhead.jpa.multipledatasources;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

/** {@code data-source} named alone in a JPA application never gets a bare JDBC transaction manager. */
class DataSourceOfJpaStartUpTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            // JPA works on the ledger database, but no transaction manager of the application manages it.
            .withUserConfiguration(MultipleDataSourcesTests.OrdersDatabase.class,
                    MultipleDataSourcesTests.LedgerDatabase.class)
            .withPropertyValues("db.bulkhead.workloads.ledger.max-concurrent=1",
                    "db.bulkhead.workloads.ledger.data-source=ledgerDataSource");

    @Test
    void aDataSourceThatJpaUsesWithoutAJpaTransactionManagerFailsStartUpNamingTheKeyToSet() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            assertThat(NestedExceptionUtils.getRootCause(context.getStartupFailure()))
                    .isInstanceOfSatisfying(BulkheadConfigurationException.class, failure -> {
                        assertThat(failure).hasMessageContaining("'db.bulkhead.workloads.ledger.data-source' names"
                                + " DataSource 'ledgerDataSource', which JPA uses, and no JpaTransactionManager"
                                + " manages it");
                        assertThat(failure.action()).contains("Set 'db.bulkhead.workloads.ledger.transaction-manager'");
                    });
        });
    }
}
