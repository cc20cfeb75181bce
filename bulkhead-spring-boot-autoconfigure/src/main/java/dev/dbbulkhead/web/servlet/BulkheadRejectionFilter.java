package dev.dbbulkhead.web.servlet;

import dev.dbbulkhead.gate.RequestCommits;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers a rejection that escaped Spring MVC's exception handling — raised while a view renders (a template or
 * a formatter calling a gated method), or by a filter behind this one — with 503 and {@code Retry-After} instead of
 * the container's 500. Whatever the view wrote so far is discarded; once the response is committed nothing can be
 * changed and the failure goes on as it came.
 *
 * <p>It also counts the request's committed operations ({@link RequestCommits#track()}) from here to its end, so that
 * a refusal after some of them says that the request is part done rather than that nothing was done.
 */
public final class BulkheadRejectionFilter extends OncePerRequestFilter implements Ordered {

    /**
     * After Boot's infrastructure filters (all ordered below zero: encoding, observation, security), so that they
     * see the 503 rather than the exception.
     */
    public static final int ORDER = 0;

    private static final Log logger = LogFactory.getLog(BulkheadRejectionFilter.class);

    private final BulkheadRejectionResponder responder;

    /** @param responder writes the 503 */
    public BulkheadRejectionFilter(BulkheadRejectionResponder responder) {
        this.responder = responder;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try (RequestCommits.Scope tracked = RequestCommits.track()) {
            chain.doFilter(request, response);
        } catch (ServletException | IOException | RuntimeException failure) {
            answerOrRethrow(responder, request, response, failure);
        }
    }

    /**
     * Answers {@code failure} with 503 when it is a refusal and the response can still be changed; rethrows it
     * otherwise: what a filter that sees refusals escape the chain behind it does.
     */
    static void answerOrRethrow(BulkheadRejectionResponder responder, HttpServletRequest request,
            HttpServletResponse response, Exception failure) throws ServletException, IOException {
        RuntimeException overload = BulkheadRejectionResponder.overloadIn(failure);
        if (overload == null || response.isCommitted()) {
            if (failure instanceof ServletException servlet) {
                throw servlet;
            }
            if (failure instanceof IOException io) {
                throw io;
            }
            throw (RuntimeException) failure;
        }
        // All of it, headers and the choice of writer included: the view's half page must not reach the client.
        response.reset();
        responder.respond(request, response, overload);
        if (logger.isDebugEnabled()) {
            // One line, not the trace of the view that failed: the refusal is answered, and counted in the meters.
            logger.debug("Answered 503 to " + request.getMethod() + " " + request.getRequestURI()
                    + ", refused outside Spring MVC's exception handling (a view rendering or a filter): "
                    + overload.getMessage());
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
