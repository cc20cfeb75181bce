package dev.dbbulkhead.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * An embedded PostgreSQL 17 of the caller's own, which the caller configures and can stop and start again on the same
 * port and data directory, as a database restart does to its clients. The one server of {@link PostgresFixture}
 * cannot serve such a test: it may be an existing server or a container the test cannot restart, other test classes
 * share it, and its settings are fixed. As root the server runs inside a user namespace, as the fixture's does.
 *
 * <p>Stopped on {@link #close()}, and at JVM exit if the caller never got there.
 */
public final class RestartablePostgres implements AutoCloseable {

    /** Login role of the embedded server; it trusts local connections, so there is no password. */
    public static final String USERNAME = "postgres";

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private final Path dataDirectory;
    private final Path log;
    private final Map<String, String> settings;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private final Thread stopAtExit = new Thread(this::close, "restartable-postgres-stop");
    private int port;
    private @Nullable EmbeddedPostgres running;

    private RestartablePostgres(Path directory, Map<String, String> settings) {
        this.dataDirectory = directory.resolve("data");
        this.log = directory.resolve("postgres.log");
        Map<String, String> all = new LinkedHashMap<>();
        // A test server: durability buys nothing and costs the machine's disk time.
        all.put("fsync", "off");
        all.put("synchronous_commit", "off");
        all.put("full_page_writes", "off");
        all.putAll(settings);
        this.settings = Map.copyOf(all);
    }

    /**
     * Starts a new server in {@code directory} (its data directory and log; what a former run left there is removed
     * first), on a free port.
     *
     * @param settings server settings ({@code postgresql.conf} keys), on top of fsync and synchronous commit off
     */
    public static RestartablePostgres start(Path directory, Map<String, String> settings) {
        deleteRecursively(directory);
        RestartablePostgres server = new RestartablePostgres(directory, settings);
        Runtime.getRuntime().addShutdownHook(server.stopAtExit);
        server.start();
        return server;
    }

    /** Starts the server again, on its port and data directory; does nothing while it runs. */
    public void start() {
        lifecycle.lock();
        try {
            if (running != null) {
                return;
            }
            Files.createDirectories(dataDirectory);
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setPGStartupWait(STARTUP_WAIT)
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
            settings.forEach(builder::setServerConfig);
            if (port != 0) {
                builder.setPort(port);
            }
            EmbeddedPostgres started = builder.start();
            port = started.getPort();
            running = started;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start embedded PostgreSQL 17 in " + dataDirectory, e);
        } finally {
            lifecycle.unlock();
        }
    }

    /** Stops the server (fast shutdown: sessions are ended, the data stays); does nothing while it is stopped. */
    public void stop() {
        lifecycle.lock();
        try {
            EmbeddedPostgres current = running;
            running = null;
            if (current != null) {
                current.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not stop embedded PostgreSQL 17 in " + dataDirectory, e);
        } finally {
            lifecycle.unlock();
        }
    }

    /** The port the server listens on, the same across restarts. */
    public int port() {
        return port;
    }

    /** JDBC URL of the {@code postgres} database, for {@link #USERNAME}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres";
    }

    /** A connection outside every pool, named {@code applicationName} in {@code pg_stat_activity}. */
    public Connection connect(String applicationName) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", USERNAME);
        properties.setProperty("ApplicationName", applicationName);
        return DriverManager.getConnection(jdbcUrl(), properties);
    }

    /** The server's own log. */
    public Path log() {
        return log;
    }

    @Override
    public void close() {
        stop();
        if (Thread.currentThread() != stopAtExit) {
            try {
                Runtime.getRuntime().removeShutdownHook(stopAtExit);
            } catch (IllegalStateException exiting) {
                // The JVM is exiting: the hook runs or has run, and finds the server stopped.
            }
        }
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not remove what a former run left in " + directory, e);
        }
    }
}
