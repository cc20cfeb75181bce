package dev.dbbulkhead.jpa.multipledatasources;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Two databases of their own on the one test server: two real pools, as an application with two DataSources has. */
final class TwoDatabases {

    static final String ORDERS = create("orders");
    static final String LEDGER = create("ledger");

    private static final Pattern DATABASE_IN_URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)");

    private TwoDatabases() {
    }

    /** A HikariCP pool named {@code poolName} of {@code size} connections on {@code database}. */
    static HikariDataSource pool(String database, String poolName, int size) {
        PostgresServer server = PostgresFixture.server();
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(url(database));
        config.setUsername(server.username());
        config.setPassword(server.password());
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(1_000);
        return new HikariDataSource(config);
    }

    /** A plain connection to {@code database}, outside every pool, to look at the data from the side. */
    static Connection connect(String database) throws SQLException {
        PostgresServer server = PostgresFixture.server();
        return DriverManager.getConnection(url(database), server.username(), server.password());
    }

    private static String url(String database) {
        Matcher url = DATABASE_IN_URL.matcher(PostgresFixture.server().jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("Unexpected JDBC URL of the test server: " + PostgresFixture.server());
        }
        return url.group(1) + database + url.group(3);
    }

    private static String create(String purpose) {
        String database = purpose + "_" + ProcessHandle.current().pid();
        PostgresServer server = PostgresFixture.server();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + database + " on " + server, e);
        }
        return database;
    }
}
