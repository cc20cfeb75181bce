package dev.dbbulkhead.jpa;

import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.springframework.test.context.DynamicPropertyRegistry;

/** One schema for the JPA tests of this JVM on the real PostgreSQL; Hibernate creates its tables there. */
public final class JpaTestDatabase {

    public static final TestDatabase DATABASE = PostgresFixture.freshSchema();

    private JpaTestDatabase() {
    }

    /** The first column of the first row of {@code sql}, read on a connection outside the application. */
    public static String sideQuery(String sql) {
        try (Connection side = DATABASE.connect(); Statement statement = side.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
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
