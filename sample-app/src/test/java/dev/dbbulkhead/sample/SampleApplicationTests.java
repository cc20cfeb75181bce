package dev.dbbulkhead.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sample as a newcomer runs it: on a random port, on its own embedded PostgreSQL, called over real HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Test
    void anOrderIsPlacedAndReadBack() throws Exception {
        HttpResponse<String> placed = send(HttpRequest.newBuilder(uri("/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":3,\"quantity\":2}")).build());

        assertThat(placed.statusCode()).isEqualTo(201);
        long id = json(placed).get("id").asLong();
        HttpResponse<String> read = get("/orders/" + id);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(json(read).get("quantity").asInt()).isEqualTo(2);
        assertThat(get("/reports/sales?heavyMillis=0").statusCode()).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0} is answered 400 naming {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"productId":3,"quantity":-1}    | quantity  | quantity must be greater than 0
            {"productId":3,"quantity":0}     | quantity  | quantity must be greater than 0
            {"productId":-3,"quantity":1}    | productId | productId must be greater than 0
            {"productId":3,"quantity":"two"} | quantity  | quantity has a value of the wrong type
            not json                         | body      | body is not the JSON this endpoint reads
            """)
    void badInputToAnOrderIsAnswered400WithAProblemDetailNamingTheField(String body, String field, String detail)
            throws Exception {
        HttpResponse<String> refused = send(HttpRequest.newBuilder(uri("/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json(refused).get("detail").asString()).isEqualTo(detail);
        assertThat(json(refused).get("errors").propertyNames()).containsExactly(field);
    }

    @Test
    void aMistypedParameterIsAnswered400NamingIt() throws Exception {
        HttpResponse<String> refused = get("/orders/first");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(json(refused).get("detail").asString()).isEqualTo("id must be a long");
    }

    @Test
    void aReportsFloodIsAnswered503WithRetryAfterAndShowsInTheEndpointAndTheMeters() throws Exception {
        // reports has B=2 and no queue: two slow reports take both places, the third is refused at once.
        List<CompletableFuture<HttpResponse<String>>> slow = List.of(slowReport(), slowReport());
        Await.until("both reports running", () -> reportsActive() == 2);

        HttpResponse<String> refused = get("/reports/sales?heavyMillis=0");

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After"))
                .as("at least retry-after, at most twice it: the default jitter")
                .hasValueSatisfying(seconds -> assertThat(seconds).isIn("1", "2"));
        assertThat(json(refused).get("workload").asString()).isEqualTo("reports");
        assertThat(json(refused).get("reason").asString()).isEqualTo("ADMISSION_FULL");
        for (CompletableFuture<HttpResponse<String>> report : slow) {
            assertThat(report.get().statusCode()).isEqualTo(200);
        }
        JsonNode reports = json(get("/actuator/dbbulkheads/reports"));
        assertThat(reports.get("rejected").get("full").asLong()).isPositive();
        assertThat(reports.get("active").asInt()).isZero();
        HttpResponse<String> meter = get("/actuator/metrics/db.bulkhead.rejected?tag=workload:reports&tag=reason:full");
        assertThat(json(meter).get("measurements").get(0).get("value").asDouble()).isPositive();
        assertThat(get("/actuator/prometheus").body())
                .contains("db_bulkhead_rejected_total{reason=\"full\",workload=\"reports\"}")
                .contains("hikaricp_connections_active{pool=\"shop\"}");
        assertThat(json(get("/actuator/health")).get("status").asString()).isEqualTo("UP");
    }

    private CompletableFuture<HttpResponse<String>> slowReport() {
        return http.sendAsync(HttpRequest.newBuilder(uri("/reports/sales?heavyMillis=2000")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private int reportsActive() {
        try {
            return json(get("/actuator/dbbulkheads/reports")).get("active").asInt();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }
}
