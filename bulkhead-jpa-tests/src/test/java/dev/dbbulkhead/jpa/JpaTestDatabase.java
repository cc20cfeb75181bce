package dev.dbbulkhead.jpa;

import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;

/** One schema for the JPA tests of this JVM on the real PostgreSQL; Hibernate creates its tables there. */
public final class JpaTestDatabase {

    public static final TestDatabase DATABASE = PostgresFixture.freshSchema();

    private JpaTestDatabase() {
    }

    /** Points {@code spring.datasource} (and Hibernate's default schema) at {@link #DATABASE}. */
    public static void register(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> DATABASE.server().jdbcUrl());
        registry.add("spring.datasource.username", () -> DATABASE.server().username());
        registry.add("spring.datasource.password", () -> DATABASE.server().password());
        registry.add("spring.datasource.hikari.schema", DATABASE::schema);
        registry.add("spring.jpa.properties.hibernate.default_schema", DATABASE::schema);
    }
}
