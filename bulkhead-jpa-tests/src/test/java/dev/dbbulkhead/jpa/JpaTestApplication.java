package dev.dbbulkhead.jpa;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Data JPA application on Hibernate with Boot's defaults (open-session-in-view included) and the
 * db-bulkhead starter. Its entities and repositories live in {@code shop}; each test adds the beans it is about.
 */
@SpringBootApplication
public class JpaTestApplication {
}
