package dev.dbbulkhead.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.test.WorkloadSaturation;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The sample's own answers to refusals, tested as an application would test its own: the {@code orders} workload
 * saturated on purpose with {@link WorkloadSaturation}, the requests sent over real HTTP, the places given back at
 * the end of each try block.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleRefusalsTests {

    private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Test
    void anApiClientRefusedAnOrderGetsAProblemWithRetryAfterAndNothingWasWritten() throws Exception {
        HttpResponse<String> refused;
        try (WorkloadSaturation saturated = WorkloadSaturation.of(registry, "orders")) {
            refused = placeOrder();
        }

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After"))
                .as("at least retry-after, at most twice it: the default jitter")
                .hasValueSatisfying(seconds -> assertThat(seconds).isIn("1", "2"));
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"workload\":\"orders\"", "\"reason\":\"ADMISSION_FULL\"",
                "nothing was done");
        assertThat(placeOrder().statusCode()).as("once the places are back").isEqualTo(201);
    }

    @Test
    void aBrowserRefusedAnOrderPageIsToldTheServiceIsBusyAndWhenToTryAgain() throws Exception {
        HttpResponse<String> refused;
        try (WorkloadSaturation saturated = WorkloadSaturation.of(registry, "orders")) {
            refused = http.send(HttpRequest.newBuilder(uri("/orders/1")).header("Accept", BROWSER).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        assertThat(refused.statusCode()).isEqualTo(503);
        String retryAfter = refused.headers().firstValue("Retry-After").orElseThrow();
        assertThat(retryAfter).as("at least retry-after, at most twice it: the default jitter").isIn("1", "2");
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
        assertThat(refused.body()).as("the page says what the header says").contains("<title>Service busy</title>",
                "The service is busy right now. Please try again in "
                        + ("1".equals(retryAfter) ? "1 second." : retryAfter + " seconds."));
        assertThat(refused.body()).doesNotContain("orders", "ADMISSION_FULL", "Whitelabel");
    }

    private HttpResponse<String> placeOrder() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri("/orders")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":7,\"quantity\":1}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
