package dev.dbbulkhead.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Runs the sample against a PostgreSQL 17 container instead of the embedded server, for users with Docker:
 * run this class's {@code main} from the IDE.
 */
public final class TestSampleApplication {

    private TestSampleApplication() {
    }

    public static void main(String[] args) {
        SpringApplication.from(SampleApplication::main)
                .with(PostgresContainer.class)
                .run("--sample.embedded-postgres.enabled=false");
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class PostgresContainer {

        @Bean
        @ServiceConnection
        PostgreSQLContainer postgres() {
            return new PostgreSQLContainer("postgres:17-alpine");
        }
    }
}
