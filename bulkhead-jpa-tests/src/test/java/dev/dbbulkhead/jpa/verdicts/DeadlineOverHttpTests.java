package dev.dbbulkhead.jpa.verdicts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;

/**
 * Over HTTP, an admitted operation whose deadline runs out inside its JPA transaction is a 503 with Retry-After,
 * like a deadline spent in the queue; a statement timeout the application set as a hard limit is not.
 */
@SpringBootTest(classes = {JpaTestApplication.class, DeadlineOverHttpTests.Sleeper.class, DeadlineOverHttpTests.Sleeps.class},
        webEnvironment = SpringBootTest.WebEnvironment.MOCK,
        properties = {
                "db.bulkhead.workloads.deadlined.deadline=300ms",
                "db.bulkhead.workloads.deadlined.retry-after=2s",
                "db.bulkhead.workloads.deadlined.retry-after-jitter=0s",
                "db.bulkhead.workloads.limited.statement-timeout=100ms",
                "db.bulkhead.workloads.limited.deadline=60s"})
@DisplayName("A deadline that runs out inside the transaction, over HTTP (JPA, real PostgreSQL)")
@Timeout(60)
class DeadlineOverHttpTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    private MockMvc http;

    @BeforeEach
    void mockMvc(@Autowired WebApplicationContext context) {
        http = MockMvcBuilders.webAppContextSetup(context).build();
    }

    @Test
    @DisplayName("the deadline's statement_timeout cap ends a JPA query: 503, Retry-After, reason DEADLINE_EXCEEDED")
    void aDeadlineThatRunsOutInsideTheTransactionIs503WithRetryAfter() throws Exception {
        http.perform(get("/sleep/deadlined"))
                .andExpect(status().isServiceUnavailable())
                .andExpect(header().string("Retry-After", "2"))
                .andExpect(jsonPath("$.workload").value("deadlined"))
                .andExpect(jsonPath("$.reason").value("DEADLINE_EXCEEDED"));
    }

    @Test
    @DisplayName("the application's own statement-timeout, with budget to spare, stays the application's error (no 503)")
    void theApplicationsOwnStatementTimeoutIsNoDeadline() {
        // No handler answers it: it leaves the dispatcher as it is, for the application's handlers or Boot's 500 page.
        // Hibernate 7.2 (Boot 4.0) throws QueryTimeoutException here, 7.4 (Boot 4.1) a plain PersistenceException:
        // both are the JPA query's own failure, with the server's 57014 at the root, and neither is a deadline.
        assertThatThrownBy(() -> http.perform(get("/sleep/limited")))
                .satisfies(failure -> assertThat(failure.getCause()).isInstanceOf(PersistenceException.class)
                        .isNotInstanceOf(DeadlineExceededException.class))
                .rootCause().isInstanceOfSatisfying(SQLException.class,
                        timeout -> assertThat(timeout.getSQLState()).isEqualTo("57014"));
    }

    @RestController
    static class Sleeper {

        private final Sleeps sleeps;

        Sleeper(Sleeps sleeps) {
            this.sleeps = sleeps;
        }

        @GetMapping("/sleep/deadlined")
        String deadlined() {
            return sleeps.deadlined();
        }

        @GetMapping("/sleep/limited")
        String limited() {
            return sleeps.limited();
        }
    }

    @Service
    static class Sleeps {

        private final EntityManager entityManager;

        Sleeps(EntityManager entityManager) {
            this.entityManager = entityManager;
        }

        @DbBulkhead("deadlined")
        public String deadlined() {
            return sleep();
        }

        @DbBulkhead("limited")
        public String limited() {
            return sleep();
        }

        private String sleep() {
            entityManager.createNativeQuery("select pg_sleep(5)").getSingleResult();
            return "slept";
        }
    }
}
