package dev.dbbulkhead.benchmarks.overload;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.PostgresServer;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The database of the scenarios: a schema of its own on the local PostgreSQL, a table of accounts to update, and
 * HikariCP pools configured the same way for every guard.
 */
public final class BenchDatabase {

    private static final int ACCOUNTS = 10_000;
    /** How long a new pool may take to open its connections on a loaded machine. */
    private static final Duration OPENING_LIMIT = Duration.ofSeconds(30);
    private static final String HASH = "SELECT sum(hashint4(g)) FROM generate_series(1, ?) g";
    private static final String UPDATE_ACCOUNT =
            "UPDATE account SET balance = balance + 1, updated = now() WHERE id = ? RETURNING balance";

    private final TestDatabase database;

    private BenchDatabase(TestDatabase database) {
        this.database = database;
    }

    /** A fresh schema with the accounts table filled. */
    public static BenchDatabase create() {
        TestDatabase database = PostgresFixture.freshSchema();
        database.execute(
                "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL, updated timestamptz)",
                "INSERT INTO account SELECT g, 0, now() FROM generate_series(1, " + ACCOUNTS + ") g");
        return new BenchDatabase(database);
    }

    /** The schema of the accounts table, for applications that build their own pools on it. */
    public TestDatabase database() {
        return database;
    }

    /** Spring Boot's {@code spring.datasource} properties for a pool on {@code database}'s schema. */
    public static Map<String, Object> bootDataSource(TestDatabase database) {
        return Map.of(
                "spring.datasource.url", database.server().jdbcUrl(),
                "spring.datasource.username", database.server().username(),
                "spring.datasource.password", database.server().password(),
                "spring.datasource.hikari.schema", database.schema());
    }

    /** One of the accounts, chosen at random. */
    public static int randomAccount() {
        return ThreadLocalRandom.current().nextInt(1, ACCOUNTS + 1);
    }

    /**
     * A new pool of {@code size} connections, all opened before this returns, handing out connections with
     * auto-commit off.
     */
    public HikariDataSource pool(int size, Duration connectionTimeout, String name) throws SQLException {
        HikariConfig config = database.poolConfig(size, name);
        config.setAutoCommit(false);
        config.setConnectionTimeout(connectionTimeout.toMillis());
        // Names the pool's sessions in pg_stat_activity, for scenarios that watch them from the server's side.
        config.addDataSourceProperty("ApplicationName", name);
        HikariDataSource pool = new HikariDataSource(config);
        // Open every connection now, so that no run pays for connecting.
        Connection[] held = new Connection[size];
        try {
            for (int i = 0; i < size; i++) {
                held[i] = borrowWhileOpening(pool);
            }
        } finally {
            for (Connection connection : held) {
                if (connection != null) {
                    connection.close();
                }
            }
        }
        return pool;
    }

    /**
     * A connection of {@code pool} while it is still opening its connections: the run's connection timeout (250 ms
     * in the smoke run) bounds a wait for a busy connection, not how long a loaded machine takes to open one, so a
     * timeout here is retried for up to {@link #OPENING_LIMIT}.
     */
    private static Connection borrowWhileOpening(HikariDataSource pool) throws SQLException {
        long deadline = System.nanoTime() + OPENING_LIMIT.toNanos();
        while (true) {
            try {
                return pool.getConnection();
            } catch (SQLTransientConnectionException stillOpening) {
                if (System.nanoTime() - deadline > 0) {
                    throw stillOpening;
                }
            }
        }
    }

    /**
     * The transaction of known cost: the server sleeps {@code sleep}, then one account row is updated. The rows
     * are spread so that transactions seldom wait for each other's row locks.
     */
    public static long sleepAndUpdate(Connection connection, Duration sleep) throws SQLException {
        try (PreparedStatement pause = connection.prepareStatement("SELECT pg_sleep(?)");
             PreparedStatement update = connection.prepareStatement(
                     UPDATE_ACCOUNT)) {
            pause.setDouble(1, sleep.toNanos() / 1e9);
            pause.execute();
            return updateRandomAccount(update);
        }
    }

    /**
     * The CPU-bound transaction: the server hashes {@code rows} integers, then one account row is updated. Its cost
     * grows with how many such transactions share the server's CPUs.
     */
    public static long hashAndUpdate(Connection connection, int rows) throws SQLException {
        try (PreparedStatement hash = connection.prepareStatement(HASH);
             PreparedStatement update = connection.prepareStatement(
                     UPDATE_ACCOUNT)) {
            hash.setInt(1, rows);
            hash.execute();
            return updateRandomAccount(update);
        }
    }

    /**
     * The lock-bound transaction: the hot account row (id 1) is updated first, then the server hashes {@code rows}
     * integers while the row stays locked until commit. Such transactions run one at a time whatever the limit.
     */
    public static long lockAndHash(Connection connection, int rows) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(UPDATE_ACCOUNT);
             PreparedStatement hash = connection.prepareStatement(HASH)) {
            update.setInt(1, 1);
            long balance;
            try (ResultSet updated = update.executeQuery()) {
                updated.next();
                balance = updated.getLong(1);
            }
            hash.setInt(1, rows);
            hash.execute();
            return balance;
        }
    }

    private static long updateRandomAccount(PreparedStatement update) throws SQLException {
        update.setInt(1, randomAccount());
        try (ResultSet balance = update.executeQuery()) {
            balance.next();
            return balance.getLong(1);
        }
    }

    /**
     * Callers offering {@link #sleepAndUpdate} transactions steadily at {@code perSecond} through
     * {@code transactions}, counted as executing in {@code occupancy} while they hold a connection.
     */
    public static LoadStream callers(String name, double perSecond, GuardedTransactions transactions, Duration sleep,
                                     Occupancy occupancy) {
        return callers(name, Arrivals.steady(perSecond), transactions, sleep, occupancy);
    }

    /** Callers offering {@link #sleepAndUpdate} transactions on {@code arrivals}, as above. */
    public static LoadStream callers(String name, Arrivals arrivals, GuardedTransactions transactions, Duration sleep,
                                     Occupancy occupancy) {
        return new LoadStream(name, arrivals, () -> transactions.transaction(
                connection -> occupancy.executing(() -> sleepAndUpdate(connection, sleep))));
    }

    /** The version string of the server the scenarios run on (started if need be). */
    public static String serverVersion() {
        PostgresServer server = PostgresFixture.server();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.username(),
                server.password());
             Statement statement = connection.createStatement();
             ResultSet version = statement.executeQuery("SHOW server_version")) {
            version.next();
            return version.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read the server version", e);
        }
    }
}
