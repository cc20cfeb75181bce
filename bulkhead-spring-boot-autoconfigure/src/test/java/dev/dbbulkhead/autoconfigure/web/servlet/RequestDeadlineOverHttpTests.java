package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.gate.RequestDeadline;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * One deadline per request over real HTTP, on PostgreSQL: a 300 ms budget of the application's, or the caller's
 * grpc-timeout when shorter. Workload {@code orders}: B = 1, Q = 1, a queue wait of a minute, a statement timeout of
 * 10 s that the time left of the request shortens; workload {@code plain}: no timeouts of its own.
 */
@SpringBootTest(classes = RequestDeadlineOverHttpTests.DeadlineApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.request-deadline.headers.grpc-timeout=grpc-timeout",
                "db.bulkhead.request-deadline.budget=300ms",
                "db.bulkhead.workloads.orders.max-concurrent=1", "db.bulkhead.workloads.orders.max-queued=1",
                "db.bulkhead.workloads.orders.queue-wait=1m", "db.bulkhead.workloads.orders.statement-timeout=10s",
                "db.bulkhead.workloads.plain.max-concurrent=1",
                "management.endpoints.web.exposure.include=dbbulkheads"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RequestDeadlineOverHttpTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Test
    void eachOfThreeOperationsOfARequestGetsWhatIsLeftOfItsBudgetAsItsStatementTimeout() throws Exception {
        HttpResponse<String> response = get("/three-operations", null);

        assertThat(response.statusCode()).isEqualTo(200);
        String[] operations = response.body().split(",");
        assertThat(operations).hasSize(3);
        long previousTimeout = Long.MAX_VALUE;
        for (String operation : operations) {
            String[] leftAndTimeout = operation.split("/");
            long leftBeforeAdmission = Long.parseLong(leftAndTimeout[0]);
            long statementTimeout = Long.parseLong(leftAndTimeout[1].replace("ms", ""));
            assertThat(statementTimeout).as("no more than the request had left before the operation: " + operation)
                    .isLessThanOrEqualTo(leftBeforeAdmission).isLessThanOrEqualTo(300);
            assertThat(statementTimeout).as("never more than the operation before").isLessThanOrEqualTo(previousTimeout);
            previousTimeout = statementTimeout;
        }
    }

    @Test
    void theEndpointShowsHowRequestsGetTheirDeadlinesAndEachWorkloadsRetries() throws Exception {
        HttpResponse<String> response = get("/actuator/dbbulkheads", null);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .contains("\"requestDeadline\":{\"headers\":{\"grpc-timeout\":\"grpc-timeout\"},\"budget\":\"300ms\","
                        + "\"paths\":{}}")
                .as("no retries of its own, and the default budget: its floor of 10 a second over 10 s to grant")
                .contains("\"retry\":{\"maxAttempts\":1,\"percentCanRetry\":0.1,\"minRetriesPerSecond\":10,"
                        + "\"window\":\"10s\",\"granted\":0,\"refused\":0,\"balance\":100}");
    }

    @Test
    void aCallersDeadlineShorterThanTheQueueWaitIsRefusedAtTheGate() throws Exception {
        BulkheadTemplate orders = registry.template("orders");
        try (HeldOperations running = HeldOperations.hold(orders, 1)) {
            HttpResponse<String> refused = get("/three-operations", "50m");

            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("\"reason\":\"QUEUE_TIMEOUT\"").contains("overloaded");
            assertThat(orders.gate().waiting()).as("the refused caller left the queue").isZero();
        }
    }

    @Test
    void aCallerWithNoTimeLeftIsToldItsTimeRanShortNotThatTheDatabaseIsOverloaded() throws Exception {
        HttpResponse<String> refused = get("/three-operations", "0m");

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("\"reason\":\"INSUFFICIENT_TIME\"")
                .contains("what was left of its deadline").doesNotContain("overloaded");
    }

    @Test
    void aStatementOfAWorkloadWithoutTimeoutsOfItsOwnEndsWithTheRequestsDeadline() throws Exception {
        HttpResponse<String> ended = get("/sleep-a-minute", null);

        assertThat(ended.statusCode()).isEqualTo(503);
        assertThat(ended.body()).contains("\"reason\":\"DEADLINE_EXCEEDED\"");
    }

    private HttpResponse<String> get(String path, String grpcTimeout) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
        if (grpcTimeout != null) {
            request.header("grpc-timeout", grpcTimeout);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(DeadlineApplication.ThreeOperations.class)
    static class DeadlineApplication {

        /** Three operations of one request; each says what the request had left before it, and its statement timeout. */
        @RestController
        static class ThreeOperations {

            private final BulkheadRegistry registry;
            private final JdbcTemplate jdbc;

            ThreeOperations(BulkheadRegistry registry, JdbcTemplate jdbc) {
                this.registry = registry;
                this.jdbc = jdbc;
            }

            @GetMapping("/three-operations")
            String run() {
                List<String> operations = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Duration left = RequestDeadline.current().orElseThrow().remaining();
                    // Rounded up, as the gate rounds the time left into a statement timeout.
                    long leftMillis = (left.toNanos() + 999_999) / 1_000_000;
                    String timeout = registry.template("orders").execute(
                            status -> jdbc.queryForObject("SELECT current_setting('statement_timeout')", String.class));
                    operations.add(leftMillis + "/" + timeout);
                }
                return String.join(",", operations);
            }

            /** A statement that would run a minute, in a workload with no timeouts of its own. */
            @GetMapping("/sleep-a-minute")
            String sleep() {
                return registry.template("plain").execute(
                        status -> jdbc.queryForObject("SELECT pg_sleep(60)::text", String.class));
            }
        }
    }
}
