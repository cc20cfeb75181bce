package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A per-call deadline under JpaTransactionManager: its remainder caps the timeouts, and never wraps at the edge. */
@SpringBootTest(classes = JpaTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = "db.bulkhead.workloads.limited.statement-timeout=1m")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class DeadlineUnderJpaTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    BulkheadRegistry bulkheads;

    @Autowired
    EntityManager entityManager;

    @Autowired
    DataSource dataSource;

    @Test
    void theLongestPerCallDeadlineNeitherWrapsTheStatementTimeoutNorTheTransactionTimeout() {
        Object[] seen = bulkheads.template("limited").execute(Duration.ofNanos(Long.MAX_VALUE), status -> {
            ConnectionHolder holder = (ConnectionHolder) TransactionSynchronizationManager.getResource(dataSource);
            return new Object[] {
                    entityManager.createNativeQuery("SELECT setting FROM pg_settings WHERE name = 'statement_timeout'")
                            .getSingleResult(),
                    holder.getTimeToLiveInMillis()};
        });

        assertThat(seen[0]).as("statement_timeout: the configured minute").isEqualTo("60000");
        assertThat((Long) seen[1]).as("the transaction's timeout: no shorter than a year")
                .isGreaterThan(TimeUnit.DAYS.toMillis(365));
    }
}
