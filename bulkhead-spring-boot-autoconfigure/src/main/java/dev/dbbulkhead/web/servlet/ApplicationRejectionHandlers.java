package dev.dbbulkhead.web.servlet;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.transaction.TransactionTimedOutException;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.ExceptionHandlerMappingInfo;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;

/**
 * Whether the {@code @ExceptionHandler} that Spring MVC would pick for an exception is one the application wrote
 * for rejections: declared for {@code BulkheadRejectedException} or {@code RejectedExecutionException} (or for a
 * deadline exceeded: {@code DeadlineExceededException}, {@code TransactionTimedOutException}), in the
 * controller itself or in an {@code @ControllerAdvice}. A catch-all ({@code Exception}, {@code RuntimeException},
 * {@code Throwable}) does not count: it was not written for rejections and would answer them with a 500.
 */
final class ApplicationRejectionHandlers {

    private final SingletonSupplier<List<ControllerAdviceBean>> advices;
    private final Map<Class<?>, ExceptionHandlerMethodResolver> resolvers = new ConcurrentHashMap<>();

    ApplicationRejectionHandlers(ApplicationContext context) {
        // Looked up at the first rejection, when every advice bean exists; in Spring MVC's own order.
        this.advices = SingletonSupplier.of(() -> ControllerAdviceBean.findAnnotatedBeans(context).stream()
                .filter(advice -> advice.getBeanType() == null
                        || !BulkheadRejectedExceptionHandler.class.isAssignableFrom(advice.getBeanType()))
                .toList());
    }

    /** Whether MVC would answer {@code failure}, raised by {@code handler}, with a handler written for rejections. */
    boolean handleRejections(@Nullable Object handler, Exception failure) {
        Class<?> handlerType = handler instanceof HandlerMethod method ? method.getBeanType() : null;
        if (handlerType != null) {
            ExceptionHandlerMappingInfo local = mapping(handlerType, failure);
            if (local != null) {
                return writtenForRejections(local);
            }
        }
        for (ControllerAdviceBean advice : advices.obtain()) {
            if (advice.getBeanType() != null && advice.isApplicableToBeanType(handlerType)) {
                ExceptionHandlerMappingInfo chosen = mapping(advice.getBeanType(), failure);
                if (chosen != null) {
                    return writtenForRejections(chosen);
                }
            }
        }
        return false;
    }

    private @Nullable ExceptionHandlerMappingInfo mapping(Class<?> type, Exception failure) {
        return resolvers.computeIfAbsent(type, ExceptionHandlerMethodResolver::new)
                .resolveExceptionMapping(failure, MediaType.ALL);
    }

    private static boolean writtenForRejections(ExceptionHandlerMappingInfo handler) {
        return handler.getExceptionTypes().stream().anyMatch(type -> RejectedExecutionException.class.isAssignableFrom(type)
                || TransactionTimedOutException.class.isAssignableFrom(type));
    }
}
