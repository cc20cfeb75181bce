package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.gate.RequestDeadline;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What a caller sends in its deadline headers, over real HTTP on PostgreSQL, when the application has no budget of its
 * own: whatever the value, the request is served — with the longest budget for a legal value too long to count to,
 * without a deadline for a value that does not read.
 */
@SpringBootTest(classes = HeaderDeadlinesOverHttpTests.HeaderDeadlineApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.request-deadline.headers.grpc-timeout=grpc-timeout",
                "db.bulkhead.request-deadline.headers.x-timeout-ms=milliseconds",
                "db.bulkhead.workloads.orders.max-concurrent=1",
                "logging.level.dev.dbbulkhead.web.servlet.RequestDeadlineFilter=debug"})
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class HeaderDeadlinesOverHttpTests {

    private static final long LONGEST_BUDGET_MILLIS = 2_147_483_647L;

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999H", "99999999M", "99999999S"})
    void theLongestLegalGrpcTimeoutIsServedWithTheLongestBudget(String value) throws Exception {
        HttpResponse<String> response = get("grpc-timeout", value);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(Long.parseLong(response.body())).isPositive().isLessThanOrEqualTo(LONGEST_BUDGET_MILLIS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999m", "99999999u", "99999999n"})
    void theLongestLegalGrpcTimeoutOfTheShortUnitsIsServed(String value) throws Exception {
        HttpResponse<String> response = get("grpc-timeout", value);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(Long.parseLong(response.body())).isGreaterThanOrEqualTo(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"9223372036854775807", "92233720368547758079223372036854775807"})
    void moreMillisecondsThanADeadlineCanCountAreServedWithTheLongestBudget(String value) throws Exception {
        HttpResponse<String> response = get("x-timeout-ms", value);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(Long.parseLong(response.body())).isPositive().isLessThanOrEqualTo(LONGEST_BUDGET_MILLIS);
    }

    @Test
    void aSpentBudgetIsRefusedAsTimeRunShortNotAsAnError() throws Exception {
        HttpResponse<String> response = get("grpc-timeout", "0H");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("\"reason\":\"INSUFFICIENT_TIME\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"123456789H", "soon", "-5S", "5s"})
    void anUnreadableGrpcTimeoutIsServedWithoutADeadlineAndLoggedOnceAtDebug(String value, CapturedOutput output)
            throws Exception {
        HttpResponse<String> response = get("grpc-timeout", value);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("none");
        assertThat(output.getOut().lines().filter(line -> line.contains("Ignored the value of header grpc-timeout")
                && line.contains(value))).hasSize(1);
        assertThat(output.getOut()).doesNotContain("ERROR");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-9223372036854775808", "1e3"})
    void anUnreadableMillisecondsValueIsServedWithoutADeadline(String value) throws Exception {
        HttpResponse<String> response = get("x-timeout-ms", value);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("none");
    }

    private HttpResponse<String> get(String header, String value) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/left"))
                .header(header, value).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(HeaderDeadlineApplication.Left.class)
    static class HeaderDeadlineApplication {

        /** One gated operation; answers what the request had left of its deadline before it, or {@code none}. */
        @RestController
        static class Left {

            private final BulkheadRegistry registry;
            private final JdbcTemplate jdbc;

            Left(BulkheadRegistry registry, JdbcTemplate jdbc) {
                this.registry = registry;
                this.jdbc = jdbc;
            }

            @GetMapping("/left")
            String left() {
                String left = RequestDeadline.current().map(deadline -> Long.toString(deadline.remaining().toMillis()))
                        .orElse("none");
                registry.template("orders").execute(status -> jdbc.queryForObject("SELECT 1", Integer.class));
                return left;
            }
        }
    }
}
