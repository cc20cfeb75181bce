package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.testing.HeldPool;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A pool held by callers that do not pass the gates cannot make an operation overrun its deadline by more than a
 * small bounded margin: a HikariCP pool of 2 with a 30 s connection timeout, both connections held by a plain thread,
 * and workload {@code orders} with a 300 ms deadline under DataSourceTransactionManager. Its operations end with the
 * deadline outcome, HikariCP's timeout as the cause, and the pool is whole afterwards.
 */
@SpringBootTest(classes = PoolHeldOutsideTheGatesTests.HeldPoolApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.datasource.hikari.maximum-pool-size=2", "spring.datasource.hikari.minimum-idle=2",
                "spring.datasource.hikari.connection-timeout=30000",
                "spring.datasource.hikari.data-source-properties.ApplicationName=pool-held-outside-the-gates",
                "db.bulkhead.workloads.orders.max-concurrent=1", "db.bulkhead.workloads.orders.deadline=300ms"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PoolHeldOutsideTheGatesTests {

    private static final long CONNECTION_TIMEOUT_MILLIS = 30_000;

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    Orders orders;

    @Autowired
    DataSource dataSource;

    private HeldPool held;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @BeforeEach
    void holdEveryConnectionOutsideTheGates() throws Exception {
        held = HeldPool.holdEvery(dataSource);
    }

    @AfterEach
    void poolIsWhole() throws Exception {
        held.assertWholeThenRelease();
    }

    @Test
    void aBulkheadTemplateOperationEndsWithItsDeadlineNotWithThePoolsTimeout() {
        DeadlineExceededException exceeded = catchThrowableOfType(DeadlineExceededException.class,
                () -> registry.template("orders").execute(status -> jdbc.queryForObject("SELECT 1", Integer.class)));

        assertDeadlineEndedThePoolWait(exceeded);
    }

    @Test
    void aDbBulkheadCallEndsWithItsDeadlineNotWithThePoolsTimeout() {
        DeadlineExceededException exceeded = catchThrowableOfType(DeadlineExceededException.class, orders::count);

        assertDeadlineEndedThePoolWait(exceeded);
    }

    @Test
    void overHttpTheDeadlineSpentInThePoolIsA503WithReasonDeadlineExceeded() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/orders/count")).GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("\"reason\":\"DEADLINE_EXCEEDED\"").contains("\"workload\":\"orders\"");
    }

    /** The deadline outcome of workload {@code orders}, its pool wait ended by what was left of 300 ms. */
    private static void assertDeadlineEndedThePoolWait(DeadlineExceededException exceeded) {
        assertThat(exceeded).isNotNull().hasMessageContaining("waiting for a connection");
        assertThat(exceeded.workload()).isEqualTo("orders");
        HeldPool.assertWaitEndedByDeadline(exceeded, 300, CONNECTION_TIMEOUT_MILLIS);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({Orders.class, OrdersController.class})
    static class HeldPoolApplication {
    }

    @Service
    static class Orders {

        private final JdbcTemplate jdbc;

        Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DbBulkhead("orders")
        public Integer count() {
            return jdbc.queryForObject("SELECT count(*)::int FROM entries", Integer.class);
        }
    }

    @RestController
    static class OrdersController {

        private final Orders orders;

        OrdersController(Orders orders) {
            this.orders = orders;
        }

        @GetMapping("/orders/count")
        Integer count() {
            return orders.count();
        }
    }
}
