package dev.dbbulkhead.web.servlet;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.context.request.ServletWebRequest;

/**
 * Writes the 503 answer to a rejection, wherever in a servlet request it surfaced: a client that prefers HTML gets
 * {@code Retry-After} and the application's own error view for 503 when it has one (through {@code sendError}, as Boot
 * renders error pages), else a small page of db-bulkhead's that says the service is busy and when to try again; any
 * other client gets the problem detail of {@link BulkheadRejectedExceptionHandler}, written with the application's
 * message converters.
 */
public final class BulkheadRejectionResponder {

    private static final MediaType PROBLEM = MediaType.APPLICATION_PROBLEM_JSON;

    private final BulkheadRejectedExceptionHandler handler;
    private final Supplier<ContentNegotiationManager> negotiation;
    private final Supplier<List<HttpMessageConverter<?>>> converters;
    private final Predicate<HttpServletRequest> ownErrorView;

    /**
     * @param handler      the answer to a rejection: its status, {@code Retry-After} and problem detail
     * @param negotiation  the application's content negotiation, asked at the first rejection
     * @param converters   the application's message converters, asked at the first rejection
     * @param ownErrorView whether the application renders a page of its own for a 503 to this request (an
     *                     {@code error/503} view); when not, a browser gets db-bulkhead's page
     */
    public BulkheadRejectionResponder(BulkheadRejectedExceptionHandler handler,
                                      Supplier<ContentNegotiationManager> negotiation,
                                      Supplier<List<HttpMessageConverter<?>>> converters,
                                      Predicate<HttpServletRequest> ownErrorView) {
        this.handler = handler;
        this.negotiation = negotiation;
        this.converters = converters;
        this.ownErrorView = ownErrorView;
    }

    /**
     * The failure that db-bulkhead answers with a 503 behind {@code failure}: a rejection or a deadline exceeded,
     * itself or the nearest of its causes; null when none is there.
     */
    static @Nullable RuntimeException overloadIn(@Nullable Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof BulkheadRejectedException || cause instanceof DeadlineExceededException) {
                return (RuntimeException) cause;
            }
        }
        return null;
    }

    /** Answers {@code overload}, found by {@link #overloadIn}, on {@code response}, which must not be committed yet. */
    void respond(HttpServletRequest request, HttpServletResponse response, RuntimeException overload)
            throws IOException {
        ResponseEntity<ProblemDetail> answer = overload instanceof DeadlineExceededException exceeded
                ? handler.deadlineExceeded(exceeded) : handler.rejected((BulkheadRejectedException) overload);
        HttpMessageConverter<ProblemDetail> writer = problemWriter();
        boolean html = prefersHtml(request);
        if (html || writer == null) {
            answer.getHeaders().forEach((name, values) -> values.forEach(value -> response.addHeader(name, value)));
            if (html && !ownErrorView.test(request)) {
                // Not Boot's generic error page: it tells a person nothing about retrying, and rendering it through
                // an error dispatch costs as much as a page, under the very overload that refused the request.
                String retryAfter = answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER);
                BusyPage.write(response, answer.getStatusCode().value(), retryAfter);
                return;
            }
            // The container dispatches to Boot's error handling: the application's error/503 view for a browser,
            // Boot's error body for a client no converter can write a problem for; headers set before sendError stay.
            response.sendError(answer.getStatusCode().value());
            return;
        }
        ProblemDetail problem = answer.getBody();
        if (problem != null && problem.getInstance() == null) {
            problem.setInstance(URI.create(request.getRequestURI()));
        }
        ServletServerHttpResponse out = new ServletServerHttpResponse(response);
        out.setStatusCode(answer.getStatusCode());
        out.getHeaders().putAll(answer.getHeaders());
        if (problem == null) {
            out.flush();
            return;
        }
        writer.write(problem, PROBLEM, out);
    }

    /**
     * Whether the client ranks HTML above problem JSON, as a browser does; a wildcard alone does not count, so an
     * API client that accepts anything keeps problem details.
     */
    private boolean prefersHtml(HttpServletRequest request) {
        List<MediaType> accepted;
        try {
            accepted = negotiation.get().resolveMediaTypes(new ServletWebRequest(request));
        } catch (HttpMediaTypeNotAcceptableException unreadable) {
            return false;
        }
        for (MediaType type : accepted) {
            if (type.isWildcardType() || type.isWildcardSubtype()) {
                continue;
            }
            if (type.isCompatibleWith(MediaType.TEXT_HTML)) {
                return true;
            }
            if (type.isCompatibleWith(PROBLEM) || type.isCompatibleWith(MediaType.APPLICATION_JSON)) {
                return false;
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private @Nullable HttpMessageConverter<ProblemDetail> problemWriter() {
        for (HttpMessageConverter<?> converter : converters.get()) {
            if (converter.canWrite(ProblemDetail.class, PROBLEM)) {
                return (HttpMessageConverter<ProblemDetail>) converter;
            }
        }
        return null;
    }
}
