package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;

/** One schema for every test of this module, so that application contexts can be cached and shared. */
public final class SharedDatabase {

    public static final TestDatabase DATABASE = create();

    /** Spring Boot's data source and transaction auto-configurations: what the bulkheads are built on. */
    public static final AutoConfigurations BOOT_JDBC = AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionManagerCustomizationAutoConfiguration.class,
            TransactionAutoConfiguration.class);

    private SharedDatabase() {
    }

    private static TestDatabase create() {
        TestDatabase database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE entries (id INT PRIMARY KEY)");
        return database;
    }

    /** {@code runner} with {@link #BOOT_JDBC} and a data source on the shared schema. */
    public static <R extends AbstractApplicationContextRunner<R, ?, ?>> R onBootJdbc(R runner) {
        return runner.withConfiguration(BOOT_JDBC).withPropertyValues(dataSourceProperties());
    }

    /** The Spring Boot properties that point {@code spring.datasource} at the shared schema. */
    public static String[] dataSourceProperties() {
        return new String[] {
                "spring.datasource.url=" + DATABASE.server().jdbcUrl(),
                "spring.datasource.username=" + DATABASE.server().username(),
                "spring.datasource.password=" + DATABASE.server().password(),
                "spring.datasource.hikari.schema=" + DATABASE.schema()
        };
    }
}
