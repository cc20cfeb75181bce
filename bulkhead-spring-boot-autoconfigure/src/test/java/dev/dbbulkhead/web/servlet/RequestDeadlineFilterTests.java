package dev.dbbulkhead.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.deadline.TimeoutHeaderValues;
import dev.dbbulkhead.gate.RequestDeadline;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.util.pattern.PathPatternParser;

class RequestDeadlineFilterTests {

    private final RequestDeadlineFilter filter = new RequestDeadlineFilter(
            List.of(new RequestDeadlineFilter.TimeoutHeader("grpc-timeout", TimeoutHeaderValues::grpcTimeout),
                    new RequestDeadlineFilter.TimeoutHeader("x-timeout-ms", TimeoutHeaderValues::milliseconds)),
            List.of(new RequestDeadlineFilter.PathBudget(PathPatternParser.defaultInstance.parse("/reports/**"),
                    Duration.ofSeconds(30))),
            Duration.ofSeconds(2));

    @Test
    void theRequestRunsWithItsDeadlineBoundAndWithoutItOnceItHasReturned() throws Exception {
        AtomicReference<Optional<RequestDeadline>> during = new AtomicReference<>();
        MockFilterChain chain = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
            @Override
            protected void service(jakarta.servlet.http.HttpServletRequest request,
                                   jakarta.servlet.http.HttpServletResponse response) {
                during.set(RequestDeadline.current());
            }
        });

        filter.doFilter(new MockHttpServletRequest("GET", "/orders/7"), new MockHttpServletResponse(), chain);

        assertThat(during.get()).get().extracting(RequestDeadline::remaining)
                .satisfies(left -> assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2)));
        assertThat(RequestDeadline.current()).isEmpty();
    }

    @Test
    void theBudgetIsTheShortestOfTheCallersAndTheApplicationsForThePath() {
        assertThat(budgetOf("/orders/7", null, null)).isEqualTo(Duration.ofSeconds(2));
        assertThat(budgetOf("/reports/daily", null, null)).as("by path").isEqualTo(Duration.ofSeconds(30));
        assertThat(budgetOf("/orders/7", "300m", null)).as("grpc-timeout").isEqualTo(Duration.ofMillis(300));
        assertThat(budgetOf("/orders/7", "1H", null)).as("a caller cannot lengthen it").isEqualTo(Duration.ofSeconds(2));
        assertThat(budgetOf("/reports/daily", "10S", "250")).as("the shortest header").isEqualTo(Duration.ofMillis(250));
        assertThat(budgetOf("/orders/7", "soon", "later")).as("unreadable values are none").isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void withoutABudgetOfItsOwnTheApplicationTakesTheCallersOrNone() {
        RequestDeadlineFilter headersOnly = new RequestDeadlineFilter(
                List.of(new RequestDeadlineFilter.TimeoutHeader("grpc-timeout", TimeoutHeaderValues::grpcTimeout)),
                List.of(), null);
        MockHttpServletRequest sent = new MockHttpServletRequest("GET", "/orders/7");
        sent.addHeader("grpc-timeout", "5S");

        assertThat(headersOnly.budgetOf(sent)).isEqualTo(Duration.ofSeconds(5));
        assertThat(headersOnly.budgetOf(new MockHttpServletRequest("GET", "/orders/7"))).isNull();
    }

    private @Nullable Duration budgetOf(String path, @Nullable String grpcTimeout, @Nullable String millis) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", path);
        if (grpcTimeout != null) {
            request.addHeader("grpc-timeout", grpcTimeout);
        }
        if (millis != null) {
            request.addHeader("x-timeout-ms", millis);
        }
        return filter.budgetOf(request);
    }
}
