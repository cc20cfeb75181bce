package dev.dbbulkhead.sample.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The Grafana dashboard of docs/dashboards against the sample, run as a server on PostgreSQL and loaded over HTTP
 * with orders, a lock wait and refused reports: every metric a panel or a variable queries is in what
 * {@code /actuator/prometheus} answers, and every panel follows the dashboard's {@code workload} and {@code pool}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class GrafanaDashboardTests {

    /** Maven runs the tests in the module's directory, one below the repository's. */
    private static final Path DASHBOARD = Path.of("..", "docs", "dashboards", "db-bulkhead.json");
    private static final TestDatabase DATABASE = PostgresFixture.freshSchema();
    /** More orders at once than the workload has places (B = 6, Q = 12): some may be refused, none must fail. */
    private static final int ORDERS_AT_ONCE = 24;
    private static final int REFUSED_REPORTS = 3;

    private static GrafanaDashboard dashboard;

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    BulkheadRegistry bulkheads;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DATABASE.server()::jdbcUrl);
        registry.add("spring.datasource.username", DATABASE.server()::username);
        registry.add("spring.datasource.password", DATABASE.server()::password);
        registry.add("spring.datasource.hikari.schema", DATABASE::schema);
        // Longer than any test step, so that the lock wait ends by the lock timeout alone: the sample's 1 s would
        // shorten the statement timeout of a slow step below it.
        registry.add("db.bulkhead.workloads.orders.deadline", () -> "1h");
    }

    @BeforeAll
    static void readDashboard() throws IOException {
        dashboard = GrafanaDashboard.read(DASHBOARD);
    }

    @Test
    void everyMetricTheDashboardQueriesIsInThePrometheusOutputOfTheSampleUnderLoad() throws Exception {
        List<HttpResponse<String>> orders;
        List<HttpResponse<String>> reports;
        HttpResponse<String> lockedOrder;
        try (HeldPlaces heldReports = HeldPlaces.hold(bulkheads.template("reports"), 2);
             Connection lockHolder = DATABASE.connect()) {
            lockHolder.setAutoCommit(false);
            lock(lockHolder, "SELECT stock FROM product WHERE id = 1 FOR UPDATE");
            // Admitted first, so that it waits on the row and not at the gate; the row stays locked until it has
            // failed, so its wait can only end by the workload's lock timeout (200 ms).
            CompletableFuture<HttpResponse<String>> waitingOnTheLock = order(1);
            Await.until("the order of product 1 waiting on its row, or done", () -> waitingOnTheLock.isDone()
                    || lockWaits(lockHolder) > 0);
            List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
            for (int product = 2; product < 2 + ORDERS_AT_ONCE; product++) {
                sent.add(order(product));
            }
            List<CompletableFuture<HttpResponse<String>>> sentReports = new ArrayList<>();
            for (int i = 0; i < REFUSED_REPORTS; i++) {
                sentReports.add(get("/reports/sales?heavyMillis=0"));
            }
            orders = joined(sent);
            reports = joined(sentReports);
            lockedOrder = waitingOnTheLock.join();
            lockHolder.rollback();
        }

        assertThat(lockedOrder.statusCode()).as("an order whose lock wait timed out").isGreaterThanOrEqualTo(500);
        // Placed, or refused at the gate (full, or no place within the queue wait): which, timing decides.
        assertThat(orders).extracting(HttpResponse::statusCode).allMatch(Set.of(201, 503)::contains);
        assertThat(reports).extracting(HttpResponse::statusCode).containsOnly(503);
        PrometheusScrape scrape = PrometheusScrape.parse(get("/actuator/prometheus").join().body());
        assertThat(scrape.value("db_bulkhead_rejected_total", "workload", "reports", "reason", "full"))
                .isEqualTo(REFUSED_REPORTS);
        assertThat(scrape.value("db_bulkhead_lock_failures_total", "workload", "orders", "kind", "timeout"))
                .isEqualTo(1);
        assertThat(scrape.value("db_bulkhead_transaction_seconds_count", "workload", "reports", "outcome", "committed"))
                .as("the held reports").isEqualTo(2);
        assertThat(dashboard.metricNames()).isNotEmpty();
        assertThat(scrape.names()).as("the series the sample exposes").containsAll(dashboard.metricNames());
        for (GrafanaDashboard.LabelValues variable : dashboard.labelValues()) {
            assertThat(scrape.labelNames(variable.metric())).as(variable.metric()).contains(variable.label());
        }
    }

    @Test
    void everyPanelQueriesAndFollowsTheWorkloadAndPoolVariables() {
        PrometheusScrape scrape = PrometheusScrape.parse(get("/actuator/prometheus").join().body());

        assertThat(dashboard.variables()).contains("datasource", "workload", "pool");
        assertThat(dashboard.panels()).isNotEmpty().allSatisfy(panel -> assertThat(panel.expressions())
                .as(panel.title()).isNotEmpty().allSatisfy(expression -> assertThat(expression).isNotBlank()));
        assertThat(dashboard.bareMetricNames()).as("queried without label matchers").allSatisfy(name -> {
            assertThat(scrape.labelNames(name)).as(name).doesNotContain("workload");
            assertThat(name).doesNotStartWith("hikaricp_");
        });
        assertThat(dashboard.selectors()).allSatisfy(selector -> {
            if (scrape.labelNames(selector.metric()).contains("workload")) {
                assertThat(selector.matchers()).as(selector.metric()).contains("workload=~\"$workload\"");
            }
            if (selector.metric().startsWith("hikaricp_")) {
                assertThat(selector.matchers()).as(selector.metric()).contains("pool=~\"$pool\"");
            }
        });
    }

    private static void lock(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Sessions waiting for a lock that {@code holder} holds: the order waiting on the row. */
    private static int lockWaits(Connection holder) {
        try (Statement statement = holder.createStatement();
             ResultSet waits = statement.executeQuery(
                     "SELECT count(*) FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))")) {
            waits.next();
            return waits.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private CompletableFuture<HttpResponse<String>> order(int product) {
        return http.sendAsync(HttpRequest.newBuilder(uri("/orders")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":" + product + ",\"quantity\":1}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        return http.sendAsync(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<HttpResponse<String>> joined(List<CompletableFuture<HttpResponse<String>>> responses) {
        return responses.stream().map(CompletableFuture::join).toList();
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
