package dev.dbbulkhead.testing;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A schema of its own on the shared test server.
 *
 * @param server the server holding the schema
 * @param schema the schema's name; new connections and pools default to it
 */
public record TestDatabase(PostgresServer server, String schema) {

    /** A HikariCP pool of {@code maximumPoolSize} connections on this schema, 1 s connection timeout. */
    public HikariDataSource pool(int maximumPoolSize) {
        return PostgresFixture.pool(server, schema, maximumPoolSize, "test-" + schema);
    }

    /** A plain connection outside every pool, for setup and for looking at the data from the side. */
    public Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
        connection.setSchema(schema);
        return connection;
    }

    /** Runs DDL or other statements on a side connection. */
    public void execute(String... statements) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Setup SQL failed on schema " + schema, e);
        }
    }
}
