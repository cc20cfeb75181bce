package dev.dbbulkhead.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.WorkloadBinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The HTTP rules of {@code db.bulkhead.work.rules}: the first rule whose method and path a request matches binds its
 * workload to the request's thread for the whole request, and only for it; a refusal that escapes the chain — from a
 * security filter behind this one, say — is answered 503.
 */
class WorkloadRulesFilterTests {

    private final WorkloadRulesFilter filter = new WorkloadRulesFilter(List.of(
            rule("GET", "/owners/**", "browse"),
            rule(null, "/owners/**", "edit"),
            rule(null, "/api/**", "api")),
            new BulkheadRejectionResponder(new BulkheadRejectedExceptionHandler(Map.of(), new RetryAfter(1, 0)),
                    ContentNegotiationManager::new, List::of, request -> false));

    private static WorkloadRulesFilter.Rule rule(String method, String pattern, String workload) {
        return new WorkloadRulesFilter.Rule(method, PathPatternParser.defaultInstance.parse(pattern), workload);
    }

    private static MockHttpServletRequest request(String method, String path) {
        MockHttpServletRequest request = new MockHttpServletRequest(method, "/shop" + path);
        request.setContextPath("/shop");
        return request;
    }

    /** The workload bound while the chain ran, or "none". */
    private String boundDuring(MockHttpServletRequest request) throws Exception {
        List<String> seen = new ArrayList<>();
        filter.doFilter(request, new MockHttpServletResponse(), (req, res) -> {
            String bound = WorkloadBinding.current();
            seen.add(bound == null ? "none" : bound);
        });
        assertThat(WorkloadBinding.current()).as("unbound after the request").isNull();
        return seen.get(0);
    }

    @Test
    void theFirstRuleWhoseMethodAndPathTheRequestMatchesNamesItsWorkload() throws Exception {
        assertThat(boundDuring(request("GET", "/owners/7"))).isEqualTo("browse");
        assertThat(boundDuring(request("POST", "/owners/7/pets"))).isEqualTo("edit");
        assertThat(boundDuring(request("DELETE", "/api/orders"))).isEqualTo("api");
        assertThat(boundDuring(request("GET", "/vets"))).as("no rule: left to the others").isEqualTo("none");
    }

    @Test
    void aRefusalThatEscapesTheChainIsAnswered503() throws Exception {
        MockHttpServletResponse response = new MockHttpServletResponse();
        filter.doFilter(request("GET", "/owners/7"), response, (req, res) -> {
            throw new BulkheadRejectedException("browse", RejectionReason.ADMISSION_FULL, false);
        });
        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeader("Retry-After")).isNotNull();
    }
}
