package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;

/** One schema for every test of this module, so that application contexts can be cached and shared. */
final class SharedDatabase {

    static final TestDatabase DATABASE = create();

    private SharedDatabase() {
    }

    private static TestDatabase create() {
        TestDatabase database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE entries (id INT PRIMARY KEY)");
        return database;
    }

    /** The Spring Boot properties that point {@code spring.datasource} at the shared schema. */
    static String[] dataSourceProperties() {
        return new String[] {
                "spring.datasource.url=" + DATABASE.server().jdbcUrl(),
                "spring.datasource.username=" + DATABASE.server().username(),
                "spring.datasource.password=" + DATABASE.server().password(),
                "spring.datasource.hikari.schema=" + DATABASE.schema()
        };
    }
}
