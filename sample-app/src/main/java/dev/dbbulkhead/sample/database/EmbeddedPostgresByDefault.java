package dev.dbbulkhead.sample.database;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded PostgreSQL 17 when no {@code spring.datasource.url} is configured, and points the data
 * source at it: the sample runs with nothing installed. Given a URL, it does nothing and that database is used.
 * Runs after the application's own configuration is loaded, so a URL from any source wins.
 *
 * <p>The server stops with the application, last: after the web server and the gates have drained and the
 * connection pool has closed ({@link EmbeddedPostgresServer}), not from a JVM shutdown hook of its own, which would
 * run beside the application's graceful shutdown and end the connections of requests still in flight.
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
        EmbeddedPostgresServer server = new EmbeddedPostgresServer(postgres);
        application.addInitializers(server::stopAfterTheDataSources);
        // A start-up that fails before the server's bean exists would otherwise leave the server running.
        application.addListeners((ApplicationListener<ApplicationFailedEvent>) failed -> server.destroy());
        environment.getPropertySources().addLast(new MapPropertySource("embeddedPostgres", Map.of(
                URL_PROPERTY, postgres.getJdbcUrl("postgres", "postgres"),
                "spring.datasource.username", "postgres",
                "spring.datasource.password", "")));
    }

    private static EmbeddedPostgres start() {
        try {
            return EmbeddedPostgres.builder().setServerConfig("max_connections", "100")
                    .setRegisterShutdownHook(false).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded PostgreSQL 17; set " + URL_PROPERTY
                    + " to use another database", e);
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
