package dev.dbbulkhead.web.servlet;

import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Binds each request's {@link OperationClass} — its criticality from a header, its key from a
 * {@link BulkheadKeyResolver} — to the request's thread for the whole request, so that every {@code @DbBulkhead} and
 * {@code BulkheadTemplate} operation of the request tells the gates of workloads with admission rules what it is.
 * What an operation says itself wins: a {@code @DbBulkhead(criticality)} or {@code BulkheadTemplate.withCriticality}
 * over the request's criticality, a {@code @DbBulkhead(key)} expression that gives a key over the request's key. A
 * request with neither is not classified (default criticality, no key). Work handed to another thread does not
 * carry it unless wrapped ({@link OperationClass#wrap(Runnable)}); an asynchronous dispatch is not given it.
 *
 * <p>A criticality header lets callers rank their own requests, and a key header lets them choose the share they are
 * counted against: read them from a trusted hop (a gateway that sets them), not from the open internet, or take the
 * key from the authenticated principal ({@link BulkheadKeyResolver#principal()}).
 */
public final class RequestClassFilter extends OncePerRequestFilter implements Ordered {

    /**
     * Just after Spring Security's filter chain ({@code -100}), so that the principal is known to a resolver that
     * reads it; the database work of security's own filters (a user lookup) runs unclassified.
     */
    public static final int ORDER = -90;

    private final @Nullable String criticalityHeader;
    private final @Nullable BulkheadKeyResolver keys;

    /**
     * @param criticalityHeader the header whose value ({@code critical}, {@code default}, {@code sheddable}, any case)
     *                          is the criticality, or {@code null} for none; another value is the default criticality
     * @param keys              the key of each request, or {@code null} for none
     */
    public RequestClassFilter(@Nullable String criticalityHeader, @Nullable BulkheadKeyResolver keys) {
        this.criticalityHeader = criticalityHeader;
        this.keys = keys;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        OperationClass operationClass = classOf(request);
        if (operationClass == null) {
            chain.doFilter(request, response);
            return;
        }
        try (OperationClass.Scope bound = operationClass.bind()) {
            chain.doFilter(request, response);
        }
    }

    /** The class of {@code request}'s operations, or {@code null} when it has neither a criticality nor a key. */
    @Nullable OperationClass classOf(HttpServletRequest request) {
        Criticality criticality = criticalityOf(request);
        BulkheadKeyResolver resolver = keys;
        String key = resolver == null ? null : resolver.keyOf(request);
        if (key != null) {
            return OperationClass.of(criticality != null ? criticality : Criticality.DEFAULT, key);
        }
        return criticality == null ? null : OperationClass.of(criticality);
    }

    private @Nullable Criticality criticalityOf(HttpServletRequest request) {
        String header = criticalityHeader;
        String value = header == null ? null : request.getHeader(header);
        if (value == null) {
            return null;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "critical" -> Criticality.CRITICAL;
            case "sheddable" -> Criticality.SHEDDABLE;
            default -> null;
        };
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
