package dev.dbbulkhead.web.servlet;

import dev.dbbulkhead.deadline.TimeoutHeaderValues;
import dev.dbbulkhead.gate.RequestDeadline;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Fixes each request's deadline as it arrives and binds it to the request's thread for the whole request
 * ({@link RequestDeadline#bind()}): every {@code @DbBulkhead} and {@code BulkheadTemplate} operation of the request
 * then gets what is left of it. The budget is the shortest of those the caller sends in the configured headers and
 * the application's own for the request's path; a request with none has no deadline. A header value that does not read
 * is no budget (one debug line says so), and one longer than {@link TimeoutHeaderValues#MAX_BUDGET} counts as that:
 * what a client sends never fails the request. Work the request hands to
 * another thread does not carry it unless wrapped ({@link RequestDeadline#wrap(Runnable)}); an asynchronous dispatch
 * is not given it.
 */
public final class RequestDeadlineFilter extends OncePerRequestFilter implements Ordered {

    /**
     * Early among the filters — before security's and the application's, whose database work then counts against the
     * request's deadline too — but after the request's own character-encoding and observation filters.
     */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    private final List<TimeoutHeader> headers;
    private final List<PathBudget> paths;
    private final @Nullable Duration budget;

    /**
     * @param headers the headers that carry a caller's budget, each with its reading of a value (no budget for a
     *                value it cannot read)
     * @param paths   budgets by path pattern, the first match winning
     * @param budget  the budget of a request no pattern matches, or {@code null} for none
     */
    public RequestDeadlineFilter(List<TimeoutHeader> headers, List<PathBudget> paths, @Nullable Duration budget) {
        this.headers = List.copyOf(headers);
        this.paths = List.copyOf(paths);
        this.budget = budget;
    }

    /** A header that carries the caller's budget, and how its value reads. */
    public record TimeoutHeader(String name, Function<String, Optional<Duration>> reading) {
    }

    /** The budget of the requests whose path matches {@code pattern}. */
    public record PathBudget(PathPattern pattern, Duration budget) {
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Duration requestBudget = budgetOf(request);
        if (requestBudget == null) {
            chain.doFilter(request, response);
            return;
        }
        try (RequestDeadline.Scope bound = RequestDeadline.in(requestBudget).bind()) {
            chain.doFilter(request, response);
        }
    }

    /** The shortest of the caller's budgets and the application's for this request, or {@code null} for none. */
    @Nullable Duration budgetOf(HttpServletRequest request) {
        Duration shortest = applicationBudget(request);
        for (TimeoutHeader header : headers) {
            String value = request.getHeader(header.name());
            Duration sent = value == null ? null : readable(header, value);
            if (sent != null && (shortest == null || sent.compareTo(shortest) < 0)) {
                shortest = sent;
            }
        }
        return shortest;
    }

    private @Nullable Duration readable(TimeoutHeader header, String value) {
        Duration sent = header.reading().apply(value).orElse(null);
        if (sent == null) {
            if (logger.isDebugEnabled()) {
                logger.debug("Ignored the value of header " + header.name() + ", which is no budget: "
                        + abbreviated(value));
            }
            return null;
        }
        // A reading of the application's own may give more than a deadline can count to.
        return sent.compareTo(TimeoutHeaderValues.MAX_BUDGET) > 0 ? TimeoutHeaderValues.MAX_BUDGET : sent;
    }

    /** At most the first 32 characters of what a client sent, so that a long header does not make a long log line. */
    private static String abbreviated(String value) {
        return value.length() <= 32 ? "'" + value + "'" : "'" + value.substring(0, 32) + "...' (" + value.length()
                + " characters)";
    }

    private @Nullable Duration applicationBudget(HttpServletRequest request) {
        if (paths.isEmpty()) {
            return budget;
        }
        PathContainer path = PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
        for (PathBudget entry : paths) {
            if (entry.pattern().matches(path)) {
                return entry.budget();
            }
        }
        return budget;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
