package dev.dbbulkhead.jpa.verdicts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.testing.HeldPool;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;

/**
 * Under JpaTransactionManager, a pool held by callers that do not pass the gates cannot make an operation overrun its
 * deadline by more than a small bounded margin: a HikariCP pool of 2 with a 30 s connection timeout, both connections
 * held by a plain thread, and workload {@code orders} with a 300 ms deadline. Its operations end with the deadline
 * outcome, HikariCP's timeout as the cause, and the pool is whole afterwards.
 */
@SpringBootTest(classes = {JpaTestApplication.class, PoolHeldOutsideTheGatesUnderJpaTests.Orders.class,
        PoolHeldOutsideTheGatesUnderJpaTests.OrdersController.class},
        webEnvironment = SpringBootTest.WebEnvironment.MOCK,
        properties = {"spring.datasource.hikari.maximum-pool-size=2", "spring.datasource.hikari.minimum-idle=2",
                "spring.datasource.hikari.connection-timeout=30000",
                "spring.datasource.hikari.data-source-properties.ApplicationName=pool-held-under-jpa",
                "db.bulkhead.workloads.orders.max-concurrent=1", "db.bulkhead.workloads.orders.deadline=300ms"})
@DisplayName("A pool held outside the gates, under JPA: the deadline, not the pool's 30 s, ends the wait")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PoolHeldOutsideTheGatesUnderJpaTests {

    private static final long CONNECTION_TIMEOUT_MILLIS = 30_000;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    CustomerRepository customers;

    @Autowired
    Orders orders;

    @Autowired
    DataSource dataSource;

    private MockMvc http;
    private HeldPool held;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @BeforeEach
    void holdEveryConnectionOutsideTheGates(@Autowired WebApplicationContext context) throws Exception {
        assertThat(registry.template("orders").transactionManager()).isInstanceOf(JpaTransactionManager.class);
        http = MockMvcBuilders.webAppContextSetup(context).build();
        held = HeldPool.holdEvery(dataSource);
    }

    @AfterEach
    void poolIsWhole() throws Exception {
        held.assertWholeThenRelease();
    }

    @Test
    @DisplayName("BulkheadTemplate: DeadlineExceededException, HikariCP's timeout in its causes")
    void aBulkheadTemplateOperationEndsWithItsDeadlineNotWithThePoolsTimeout() {
        DeadlineExceededException exceeded = catchThrowableOfType(DeadlineExceededException.class,
                () -> registry.template("orders").execute(status -> customers.count()));

        assertDeadlineEndedThePoolWait(exceeded);
    }

    @Test
    @DisplayName("@DbBulkhead: DeadlineExceededException, HikariCP's timeout in its causes")
    void aDbBulkheadCallEndsWithItsDeadlineNotWithThePoolsTimeout() {
        DeadlineExceededException exceeded = catchThrowableOfType(DeadlineExceededException.class, orders::count);

        assertDeadlineEndedThePoolWait(exceeded);
    }

    @Test
    @DisplayName("@DbBulkhead over HTTP: 503, reason DEADLINE_EXCEEDED")
    void overHttpTheDeadlineSpentInThePoolIsA503WithReasonDeadlineExceeded() throws Exception {
        http.perform(get("/orders/count"))
                .andExpect(status().isServiceUnavailable())
                .andExpect(jsonPath("$.workload").value("orders"))
                .andExpect(jsonPath("$.reason").value("DEADLINE_EXCEEDED"));
    }

    /** The deadline outcome of workload {@code orders}, its pool wait ended by what was left of 300 ms. */
    private static void assertDeadlineEndedThePoolWait(DeadlineExceededException exceeded) {
        assertThat(exceeded).isNotNull().hasMessageContaining("waiting for a connection");
        assertThat(exceeded.workload()).isEqualTo("orders");
        HeldPool.assertWaitEndedByDeadline(exceeded, 300, CONNECTION_TIMEOUT_MILLIS);
    }

    @Service
    static class Orders {

        private final CustomerRepository customers;

        Orders(CustomerRepository customers) {
            this.customers = customers;
        }

        @DbBulkhead("orders")
        public long count() {
            return customers.count();
        }
    }

    @RestController
    static class OrdersController {

        private final Orders orders;

        OrdersController(Orders orders) {
            this.orders = orders;
        }

        @GetMapping("/orders/count")
        long count() {
            return orders.count();
        }
    }
}
