package dev.dbbulkhead.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * One real PostgreSQL 17 server per JVM, started on first use and stopped at JVM exit.
 *
 * <p>The server comes from the first source that applies:
 * <ol>
 *   <li>the environment variable {@value #JDBC_URL_VARIABLE} (with {@value #USERNAME_VARIABLE} and
 *       {@value #PASSWORD_VARIABLE}) names an existing server;</li>
 *   <li>a Docker engine is reachable: a Testcontainers {@code postgres:17} container;</li>
 *   <li>otherwise an embedded PostgreSQL 17 process (as root it runs inside a user namespace).</li>
 * </ol>
 *
 * <p>Tests never share tables: {@link #freshSchema()} hands every caller a schema of its own in the
 * one server, so test classes can run in any order against the same database.
 */
public final class PostgresFixture {

    /** JDBC URL of an existing PostgreSQL server; when set, nothing is started. */
    public static final String JDBC_URL_VARIABLE = "DB_BULKHEAD_TEST_JDBC_URL";
    /** Login role for {@link #JDBC_URL_VARIABLE}; defaults to {@code postgres}. */
    public static final String USERNAME_VARIABLE = "DB_BULKHEAD_TEST_USERNAME";
    /** Password for {@link #JDBC_URL_VARIABLE}; defaults to empty. */
    public static final String PASSWORD_VARIABLE = "DB_BULKHEAD_TEST_PASSWORD";

    private static final String POSTGRES_IMAGE = "postgres:17-alpine";
    private static final ReentrantLock START_LOCK = new ReentrantLock();
    private static final AtomicInteger SCHEMA_SEQUENCE = new AtomicInteger();
    private static volatile @Nullable PostgresServer server;

    private PostgresFixture() {
    }

    /** The server of this JVM, started on first call; later calls return the same one. */
    public static PostgresServer server() {
        PostgresServer current = server;
        if (current != null) {
            return current;
        }
        START_LOCK.lock();
        try {
            if (server == null) {
                server = start(System.getenv());
            }
            return server;
        } finally {
            START_LOCK.unlock();
        }
    }

    /** A new, empty schema that only the caller uses; connections made from it default to that schema. */
    public static TestDatabase freshSchema() {
        PostgresServer pg = server();
        String schema = "t" + ProcessHandle.current().pid() + "_" + SCHEMA_SEQUENCE.incrementAndGet();
        try (Connection connection = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create test schema on " + pg, e);
        }
        return new TestDatabase(pg, schema);
    }

    private static PostgresServer start(Map<String, String> environment) {
        String url = environment.get(JDBC_URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return new PostgresServer(url,
                    environment.getOrDefault(USERNAME_VARIABLE, "postgres"),
                    environment.getOrDefault(PASSWORD_VARIABLE, ""),
                    PostgresServer.Origin.ENVIRONMENT);
        }
        if (dockerLooksReachable(environment) && DockerClientFactory.instance().isDockerAvailable()) {
            return startContainer();
        }
        return startEmbedded();
    }

    /** A cheap look before asking Testcontainers, whose own probe is slow and loud when no engine exists. */
    private static boolean dockerLooksReachable(Map<String, String> environment) {
        return environment.containsKey("DOCKER_HOST")
                || Files.exists(Path.of("/var/run/docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
    }

    private static PostgresServer startContainer() {
        PostgreSQLContainer container = new PostgreSQLContainer(POSTGRES_IMAGE);
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "postgres-container-stop"));
        return new PostgresServer(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                PostgresServer.Origin.TESTCONTAINERS);
    }

    private static PostgresServer startEmbedded() {
        try {
            EmbeddedPostgres embedded = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setServerConfig("full_page_writes", "off")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(embedded), "postgres-embedded-stop"));
            return new PostgresServer(embedded.getJdbcUrl("postgres", "postgres"), "postgres", "",
                    PostgresServer.Origin.EMBEDDED);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start embedded PostgreSQL 17", e);
        }
    }

    private static void closeQuietly(EmbeddedPostgres embedded) {
        try {
            embedded.close();
        } catch (IOException ignored) {
            // The JVM is exiting; the process dies with it or is reaped by the next start.
        }
    }
}
