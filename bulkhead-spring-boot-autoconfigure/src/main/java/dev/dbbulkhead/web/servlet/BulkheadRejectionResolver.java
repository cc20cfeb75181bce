package dev.dbbulkhead.web.servlet;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a rejection raised by a handler (or by anything it called: a formatter, an argument resolver, a
 * {@code @ModelAttribute} method) with 503 and {@code Retry-After} before Spring MVC's {@code @ExceptionHandler}
 * methods are asked, so that an application's catch-all handler cannot turn it into a 500. An application's own
 * handler written for rejections is left to answer: this resolver then steps aside.
 */
public final class BulkheadRejectionResolver implements HandlerExceptionResolver, Ordered {

    /** After Boot's {@code DefaultErrorAttributes}, which only records the exception for the error view. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1;

    private final BulkheadRejectionResponder responder;
    private final ApplicationRejectionHandlers applicationHandlers;

    /**
     * @param responder writes the 503
     * @param context   the application, whose {@code @ExceptionHandler} methods written for rejections are left to
     *                  answer them
     */
    public BulkheadRejectionResolver(BulkheadRejectionResponder responder, ApplicationContext context) {
        this.responder = responder;
        this.applicationHandlers = new ApplicationRejectionHandlers(context);
    }

    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
                                                   @Nullable Object handler, Exception failure) {
        RuntimeException overload = BulkheadRejectionResponder.overloadIn(failure);
        if (overload == null || response.isCommitted() || applicationHandlers.handleRejections(handler, failure)) {
            return null;
        }
        try {
            responder.respond(request, response, overload);
        } catch (IOException writeFailed) {
            throw new UncheckedIOException(writeFailed);
        }
        return new ModelAndView();
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
