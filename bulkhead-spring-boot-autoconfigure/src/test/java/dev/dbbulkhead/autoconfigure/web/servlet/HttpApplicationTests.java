package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.autoconfigure.WebApplicationTestSupport;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

/**
 * Rejections as HTTP 503, the read-only {@code dbbulkheads} endpoint and the Prometheus scrape, over real HTTP.
 * Workloads of application.yml: orders B=8 Q=16 waiting 50ms, reports B=2 Q=0; Retry-After 3s for reports and
 * 1500ms (sent as 2) for the others.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class HttpApplicationTests extends WebApplicationTestSupport {

    /** What a browser sends for a page. */
    static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    @Value("${local.server.port}")
    int serverPort;

    @Test
    void aFullGateAnswers503WithItsRetryAfterAndAProblemNamingOnlyTheWorkloadAndTheReason() throws Exception {
        HttpResponse<String> response = getWhileHeld("reports", 2, "/workloads/reports");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After"))
                .as("at least retry-after, at most twice it: the default jitter")
                .hasValueSatisfying(seconds -> assertThat(seconds).isIn("3", "4", "5", "6"));
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = json(response);
        assertThat(problem.get("status").asInt()).isEqualTo(503);
        assertThat(problem.get("workload").asString()).isEqualTo("reports");
        assertThat(problem.get("reason").asString()).isEqualTo("ADMISSION_FULL");
        assertThat(problem.propertyNames()).containsExactlyInAnyOrder("title", "status", "detail", "instance",
                "workload", "reason");
        assertThat(response.body()).doesNotContainIgnoringCase("exception").doesNotContain("jdbc", "SELECT", "at dev.");
        assertNothingOfTheDatabaseIn(response.body());
        assertThat(get("/workloads/reports").statusCode()).as("once the gate has room").isEqualTo(200);
        Files.writeString(Path.of("target", "http-503-sample.json"), response.body());
    }

    @Test
    void aBrowserGetsAPageSayingTheServiceIsBusyAndWhenToRetryInsteadOfBootsErrorPage() throws Exception {
        HttpResponse<String> response;
        try (HeldOperations running = HeldOperations.hold(registry.template("reports"), 2)) {
            response = get("/workloads/reports", BROWSER);
        }

        assertThat(response.statusCode()).isEqualTo(503);
        String retryAfter = response.headers().firstValue("Retry-After").orElseThrow();
        assertThat(retryAfter).as("at least retry-after, at most twice it: the default jitter")
                .isIn("3", "4", "5", "6");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
        assertThat(response.body()).as("the page says what the header says").isEqualTo("""
                <!DOCTYPE html>
                <html lang="en">
                <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
                <title>Service busy</title></head>
                <body><h1>Service busy</h1><p>The service is busy right now. Please try again in %s seconds.</p></body>
                </html>
                """.formatted(retryAfter));
        assertThat(response.headers().firstValue("Content-Length")).hasValue(String.valueOf(response.body().length()));
        Files.writeString(Path.of("target", "http-503-sample.html"), response.body());
    }

    @Test
    void aClientThatRanksProblemJsonFirstKeepsProblemDetailsThoughItAcceptsHtmlToo() throws Exception {
        HttpResponse<String> response = getWhileHeld("reports", 2, "/workloads/reports",
                "application/problem+json,text/html;q=0.9");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json(response).get("reason").asString()).isEqualTo("ADMISSION_FULL");
    }

    /**
     * Tomcat closes an HTTP/1.1 connection after every 503 (docs/reference/http.md tells why the starter leaves it
     * so); should that change, the reference must change with it.
     */
    @Test
    void anHttp11RefusalGoesOutWithConnectionCloseAndTheServerClosesTheConnection() throws Exception {
        String answer;
        try (HeldOperations running = HeldOperations.hold(registry.template("reports"), 2);
             Socket socket = new Socket("localhost", serverPort)) {
            socket.setSoTimeout(30_000); // only against a hang: a kept connection would never reach the end
            socket.getOutputStream().write(("GET /workloads/reports HTTP/1.1\r\nHost: localhost\r\n"
                    + "Accept: application/json\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }

        assertThat(answer).startsWith("HTTP/1.1 503 ").containsIgnoringCase("\r\nConnection: close\r\n")
                .contains("\"reason\":\"ADMISSION_FULL\"");
    }

    @Test
    void aQueueTimeoutAnswers503WithTheDefaultRetryAfterInWholeSecondsRoundedUp() throws Exception {
        HttpResponse<String> response = getWhileHeld("orders", 8, "/workloads/orders");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After"))
                .as("at least retry-after, at most twice it: the default jitter")
                .hasValueSatisfying(seconds -> assertThat(seconds).isIn("2", "3", "4"));
        assertThat(json(response).get("reason").asString()).isEqualTo("QUEUE_TIMEOUT");
    }

    @Test
    void anApplicationsOwnRejectionHandlerWinsOverTheBuiltInOne() throws Exception {
        HttpResponse<String> response = getWhileHeld("reports", 2, "/own-handling/workloads/reports");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.body()).isEqualTo("own handler: reports");
    }

    @Test
    void theEndpointShowsEveryWorkloadWithItsLimitsStateTotalsAndPool() throws Exception {
        HttpResponse<String> response = get("/actuator/dbbulkheads");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode workloads = json(response).get("workloads");
        assertThat(workloads.propertyNames()).containsExactlyInAnyOrder("orders", "reports", "queued");
        JsonNode orders = workloads.get("orders");
        assertThat(orders.get("maxConcurrent").asInt()).isEqualTo(8);
        assertThat(orders.get("maxQueued").asInt()).isEqualTo(16);
        assertThat(orders.get("queueWait").asString()).isEqualTo("50ms");
        assertThat(orders.get("rejected").propertyNames()).containsExactly("full", "timeout", "interrupted",
                "insufficient_time", "criticality", "fair_share", "pushed_out", "borrow_refused", "shutting_down");
        JsonNode queue = orders.get("queue");
        assertThat(queue.propertyNames()).containsExactly("discipline", "targetDelay", "interval", "standing", "shed");
        assertThat(queue.get("discipline").asString()).isEqualTo("fifo");
        assertThat(queue.get("targetDelay").asString()).isEqualTo("5ms");
        assertThat(queue.get("interval").asString()).isEqualTo("100ms");
        assertThat(queue.get("standing").asBoolean()).isFalse();
        assertThat(queue.get("shed").asLong()).isZero();
        JsonNode pool = orders.get("pool");
        assertThat(pool.get("dataSource").asString()).isEqualTo("dataSource");
        assertThat(pool.get("name").asString()).isEqualTo("main-pool");
        assertThat(pool.get("maximumSize").asInt()).isEqualTo(30);
        assertThat(pool.get("connectionTimeout").asString()).isEqualTo("30s");
        JsonNode budget = json(response).get("budget");
        assertThat(budget.get("fleet").get(0).asString())
                .startsWith("2 instances × 30 connections + 5 other = 65 ≤ ")
                .endsWith(" usable (the server of pool 'main-pool')");
        assertThat(budget.get("findings").get(0).get("kind").asString()).isEqualTo("UNGATED_CONNECTIONS");
        assertThat(budget.get("findings").get(0).get("message").asString())
                .contains("orders=8", "reports=2", "queued=8", " = 18 at once: 12 connections are reserved for nothing");
        Files.writeString(Path.of("target", "dbbulkheads-endpoint-sample.json"), response.body());
    }

    @Test
    void oneWorkloadShowsWhatRunsNowAndCountsItsRejectionsByReason() throws Exception {
        JsonNode before = json(get("/actuator/dbbulkheads/reports"));
        JsonNode during;
        try (HeldOperations running = HeldOperations.hold(registry.template("reports"), 2)) {
            assertThat(get("/workloads/reports").statusCode()).isEqualTo(503);
            during = json(get("/actuator/dbbulkheads/reports"));
        }
        JsonNode after = json(get("/actuator/dbbulkheads/reports"));

        assertThat(during.get("active").asInt()).isEqualTo(2);
        assertThat(during.get("waiting").asInt()).isZero();
        assertThat(after.get("active").asInt()).isZero();
        assertThat(after.get("admitted").asLong() - before.get("admitted").asLong()).isEqualTo(2);
        assertThat(after.get("rejected").get("full").asLong() - before.get("rejected").get("full").asLong())
                .isEqualTo(1);
        assertThat(get("/actuator/dbbulkheads/missing").statusCode()).isEqualTo(404);
    }

    /** No host, port, database user or password of the data source: a rejection tells a client nothing of it. */
    private static void assertNothingOfTheDatabaseIn(String body) {
        String url = SharedDatabase.DATABASE.server().jdbcUrl();
        URI database = URI.create(url.substring("jdbc:".length()));
        assertThat(body).doesNotContain(database.getHost() + ":" + database.getPort())
                .doesNotContain(String.valueOf(database.getPort()))
                .doesNotContain("\"" + SharedDatabase.DATABASE.server().username() + "\"")
                .doesNotContainIgnoringCase("password")
                .doesNotContain("postgresql");
        String password = SharedDatabase.DATABASE.server().password();
        if (!password.isEmpty()) {
            assertThat(body).doesNotContain(password);
        }
    }

    @Test
    void resizingIsRefusedUnlessTheEndpointIsGrantedUnrestrictedAccess() throws Exception {
        HttpResponse<String> response = post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 1}");

        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(registry.template("reports").gate().config().maxConcurrent()).isEqualTo(2);
    }

    @Test
    void thePrometheusScrapeHasTheBulkheadMetersNextToThePools() throws Exception {
        assertThat(get("/workloads/orders").statusCode()).isEqualTo(200);

        HttpResponse<String> scrape = get("/actuator/prometheus");

        assertThat(scrape.statusCode()).isEqualTo(200);
        String bulkheadLines = scrape.body().lines().filter(line -> line.contains("db_bulkhead_"))
                .collect(Collectors.joining("\n"));
        assertThat(bulkheadLines).contains("db_bulkhead_admitted_total{workload=\"orders\"}",
                "db_bulkhead_rejected_total{reason=\"full\",workload=\"reports\"}",
                "db_bulkhead_queue_wait_seconds_count{workload=\"orders\"}",
                "db_bulkhead_execution_seconds_count{outcome=\"committed\",workload=\"orders\"}",
                "db_bulkhead_active{workload=\"orders\"} 0",
                "db_bulkhead_waiting{workload=\"orders\"} 0",
                "db_bulkhead_limit{kind=\"concurrent\",workload=\"orders\"} 8",
                "db_bulkhead_limit{kind=\"queued\",workload=\"orders\"} 16",
                "db_bulkhead_queue_shed_total{workload=\"orders\"} 0",
                "db_bulkhead_queue_standing{discipline=\"fifo\",workload=\"orders\"} 0");
        assertThat(scrape.body()).contains("hikaricp_connections_acquire_seconds_count{pool=\"main-pool\"}");
        Files.writeString(Path.of("target", "prometheus-scrape-sample.txt"), bulkheadLines);
    }

    /** GET {@code path} while {@code held} operations of {@code workload} run. */
    private HttpResponse<String> getWhileHeld(String workload, int held, String path) throws Exception {
        try (HeldOperations running = HeldOperations.hold(registry.template(workload), held)) {
            return get(path);
        }
    }

    /** GET {@code path}, accepting {@code accept}, while {@code held} operations of {@code workload} run. */
    private HttpResponse<String> getWhileHeld(String workload, int held, String path, String accept)
            throws Exception {
        try (HeldOperations running = HeldOperations.hold(registry.template(workload), held)) {
            return get(path, accept);
        }
    }
}
