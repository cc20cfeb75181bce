package dev.dbbulkhead.web.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The key (tenant) of an HTTP request's database operations, which workloads with fair shares hold to a share of their
 * places. Declare one as a bean and {@link RequestClassFilter} asks it once per request; without a bean,
 * {@code db.bulkhead.request-class.key-header} names a header to read ({@link #header}). A method's
 * {@code @DbBulkhead(key = ...)} expression, when it gives a key, wins over the request's.
 *
 * <pre>{@code
 * @Bean
 * BulkheadKeyResolver tenants() {
 *     return BulkheadKeyResolver.principal();
 * }
 * }</pre>
 *
 * <p>Called on the request's thread, for every request: it must be cheap and must not throw. Any string will do —
 * the gates keep a fixed-size table, not the keys — but the keys of one tenant should be equal strings.
 */
@FunctionalInterface
public interface BulkheadKeyResolver {

    /** The key of {@code request}'s operations, or {@code null} for none (one flow with every operation without a key). */
    @Nullable String keyOf(HttpServletRequest request);

    /**
     * The value of header {@code name}; no key when it is absent or empty. A client that can set the header chooses
     * its share, or a new one per request: read it only when a trusted hop (a gateway that authenticates the caller)
     * sets it and drops the client's own; otherwise use {@link #principal()}.
     */
    static BulkheadKeyResolver header(String name) {
        Objects.requireNonNull(name, "name");
        return request -> {
            String value = request.getHeader(name);
            return value == null || value.isEmpty() ? null : value;
        };
    }

    /**
     * The name of the request's authenticated {@link Principal} ({@link HttpServletRequest#getUserPrincipal()}, which
     * Spring Security and the servlet container fill in); no key for an anonymous request. Spring Security sets it
     * inside its filter chain, which runs before {@link RequestClassFilter}.
     */
    static BulkheadKeyResolver principal() {
        return request -> {
            Principal principal = request.getUserPrincipal();
            return principal == null ? null : principal.getName();
        };
    }
}
