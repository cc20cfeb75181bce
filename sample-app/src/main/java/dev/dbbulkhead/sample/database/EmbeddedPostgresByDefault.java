package dev.dbbulkhead.sample.database;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded PostgreSQL 17 when no {@code spring.datasource.url} is configured, and points the data
 * source at it: the sample runs with nothing installed. Given a URL, it does nothing and that database is used.
 * Runs after the application's own configuration is loaded, so a URL from any source wins.
 */
public final class EmbeddedPostgresByDefault implements EnvironmentPostProcessor, Ordered {

    private static final String URL_PROPERTY = "spring.datasource.url";
    /** Set to false where the database comes from elsewhere without a URL property (a Testcontainers service connection). */
    static final String ENABLED_PROPERTY = "sample.embedded-postgres.enabled";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (environment.containsProperty(URL_PROPERTY)
                || !environment.getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
            return;
        }
        EmbeddedPostgres postgres = start();
        environment.getPropertySources().addLast(new MapPropertySource("embeddedPostgres", Map.of(
                URL_PROPERTY, postgres.getJdbcUrl("postgres", "postgres"),
                "spring.datasource.username", "postgres",
                "spring.datasource.password", "")));
    }

    private static EmbeddedPostgres start() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_connections", "100").start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> close(postgres), "embedded-postgres-stop"));
            return postgres;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded PostgreSQL 17; set " + URL_PROPERTY
                    + " to use another database", e);
        }
    }

    private static void close(EmbeddedPostgres postgres) {
        try {
            postgres.close();
        } catch (IOException ignored) {
            // The JVM is exiting; the server process goes with it.
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
