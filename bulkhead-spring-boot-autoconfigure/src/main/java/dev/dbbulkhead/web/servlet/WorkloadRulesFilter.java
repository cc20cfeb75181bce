package dev.dbbulkhead.web.servlet;

import dev.dbbulkhead.gate.WorkloadBinding;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Names the workload of each HTTP request by the first rule of {@code db.bulkhead.work.rules} whose method and path
 * pattern it matches, and binds it to the request's thread for the whole request ({@link WorkloadBinding}): every
 * connection the request takes outside an annotated operation is admitted by that workload's gate. A request no rule
 * matches is left to the other rules and the default workload. Runs before Spring Security's filter chain, so that a
 * security filter's own database work (a user lookup) is the request's; a refusal there is answered 503 here, as
 * {@link BulkheadRejectionFilter} answers those behind it.
 */
public final class WorkloadRulesFilter extends OncePerRequestFilter implements Ordered {

    /** Before Spring Security's filter chain ({@code -100}) and every filter of db-bulkhead's own. */
    public static final int ORDER = -110;

    /**
     * One HTTP rule.
     *
     * @param method   the request method it matches, or {@code null} for every method
     * @param pattern  the path pattern, matched against the path within the application
     * @param workload the workload it names
     */
    public record Rule(@Nullable String method, PathPattern pattern, String workload) {

        public Rule {
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(workload, "workload");
        }

        boolean matches(String requestMethod, PathContainer path) {
            return (method == null || method.equals(requestMethod)) && pattern.matches(path);
        }
    }

    private final List<Rule> rules;
    private final BulkheadRejectionResponder responder;

    /**
     * @param rules     in the order they are tried
     * @param responder answers a refusal that escapes the chain with 503
     */
    public WorkloadRulesFilter(List<Rule> rules, BulkheadRejectionResponder responder) {
        this.rules = List.copyOf(rules);
        this.responder = Objects.requireNonNull(responder, "responder");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String workload = workloadOf(request);
        if (workload == null) {
            chain.doFilter(request, response);
            return;
        }
        try (WorkloadBinding.Scope bound = WorkloadBinding.bind(workload)) {
            chain.doFilter(request, response);
        } catch (ServletException | IOException | RuntimeException failure) {
            BulkheadRejectionFilter.answerOrRethrow(responder, request, response, failure);
        }
    }

    /** The workload of the first rule {@code request} matches, or {@code null} when none does. */
    @Nullable String workloadOf(HttpServletRequest request) {
        PathContainer path = PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
        String method = request.getMethod();
        for (Rule rule : rules) {
            if (rule.matches(method, path)) {
                return rule.workload();
            }
        }
        return null;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
