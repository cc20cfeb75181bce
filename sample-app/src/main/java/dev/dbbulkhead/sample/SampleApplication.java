package dev.dbbulkhead.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A shop on virtual threads with two workloads on one pool: {@code orders} (interactive, a short queue) and
 * {@code reports} (heavy queries, a small B and no queue). Without {@code spring.datasource.url} it starts an
 * embedded PostgreSQL 17 of its own.
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
