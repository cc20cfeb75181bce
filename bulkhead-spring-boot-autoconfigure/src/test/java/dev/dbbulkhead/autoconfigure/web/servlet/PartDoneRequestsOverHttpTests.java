package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
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
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A request of three operations, each its own transaction, over real HTTP on PostgreSQL: two writes in workload
 * {@code orders}, then one in workload {@code audit}, which the test fills (B = 1, Q = 0) so that the third is refused.
 * The answer must not say that nothing was done: two rows are in the database.
 */
@SpringBootTest(classes = PartDoneRequestsOverHttpTests.PartDoneApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.workloads.orders.max-concurrent=1", "db.bulkhead.workloads.audit.max-concurrent=1",
                "db.bulkhead.workloads.audit.max-queued=0"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PartDoneRequestsOverHttpTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    JdbcTemplate jdbc;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Test
    void aRefusalAfterTwoCommittedOperationsSaysTheRequestIsNotSafeToRetryBlindly() throws Exception {
        String request = UUID.randomUUID().toString();
        HttpResponse<String> refused;
        try (HeldOperations auditFull = HeldOperations.hold(registry.template("audit"), 1)) {
            refused = post("/orders?request=" + request);
        }

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(refused.body()).contains("\"reason\":\"ADMISSION_FULL\"").contains("\"committedBefore\":2")
                .contains("earlier database work of this request was committed (2 operations)")
                .contains("it is not safe to retry this request blindly").doesNotContain("nothing was done");
        assertThat(rowsOf(request)).as("what the answer says was committed").isEqualTo(2);
    }

    @Test
    void aRefusalOfTheFirstOperationStillSaysNothingWasDone() throws Exception {
        String request = UUID.randomUUID().toString();
        HttpResponse<String> refused;
        try (HeldOperations auditFull = HeldOperations.hold(registry.template("audit"), 1)) {
            refused = post("/audit-first?request=" + request);
        }

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("nothing was done").doesNotContain("committedBefore");
        assertThat(rowsOf(request)).isZero();
    }

    @Test
    void theNextRequestStartsFromNothingCommitted() throws Exception {
        assertThat(post("/orders?request=" + UUID.randomUUID()).statusCode()).as("all three run").isEqualTo(200);

        HttpResponse<String> refused;
        try (HeldOperations auditFull = HeldOperations.hold(registry.template("audit"), 1)) {
            refused = post("/audit-first?request=" + UUID.randomUUID());
        }

        assertThat(refused.body()).contains("nothing was done").doesNotContain("committedBefore");
    }

    private int rowsOf(String request) {
        return jdbc.queryForObject("SELECT count(*) FROM part_done_writes WHERE request = ?", Integer.class, request);
    }

    private HttpResponse<String> post(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Accept", "application/problem+json").POST(HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(PartDoneApplication.Orders.class)
    static class PartDoneApplication {

        /** Writes of one request, each in a gated transaction of its own. */
        @RestController
        static class Orders {

            private final BulkheadRegistry registry;
            private final JdbcTemplate jdbc;

            Orders(BulkheadRegistry registry, JdbcTemplate jdbc) {
                this.registry = registry;
                this.jdbc = jdbc;
                jdbc.execute("CREATE TABLE IF NOT EXISTS part_done_writes (id bigserial PRIMARY KEY, request text,"
                        + " step text)");
            }

            /** The order, its lines, then the audit entry. */
            @PostMapping("/orders")
            String order(@RequestParam String request) {
                write("orders", request, "order");
                write("orders", request, "lines");
                write("audit", request, "audit");
                return "done";
            }

            /** The audit entry first. */
            @PostMapping("/audit-first")
            String auditFirst(@RequestParam String request) {
                write("audit", request, "audit");
                write("orders", request, "order");
                return "done";
            }

            private void write(String workload, String request, String step) {
                registry.template(workload).executeWithoutResult(status -> jdbc.update(
                        "INSERT INTO part_done_writes (request, step) VALUES (?, ?)", request, step));
            }
        }
    }
}
