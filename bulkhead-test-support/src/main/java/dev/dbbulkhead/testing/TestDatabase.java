package dev.dbbulkhead.testing;

import com.zaxxer.hikari.HikariConfig;
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
        return new HikariDataSource(poolConfig(maximumPoolSize, "test-" + schema));
    }

    /**
     * The settings of {@link #pool(int)}, for a caller that needs to change some before building its pool: this
     * server and schema, {@code maximumPoolSize} connections all kept open, 1 s connection timeout.
     */
    public HikariConfig poolConfig(int maximumPoolSize, String poolName) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.username());
        config.setPassword(server.password());
        config.setSchema(schema);
        config.setMaximumPoolSize(maximumPoolSize);
        config.setMinimumIdle(maximumPoolSize);
        // Short, so tests that exhaust the pool end soon; not HikariCP's 250 ms floor, which a loaded machine
        // can exceed just handing over an idle connection.
        config.setConnectionTimeout(1_000);
        return config;
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
