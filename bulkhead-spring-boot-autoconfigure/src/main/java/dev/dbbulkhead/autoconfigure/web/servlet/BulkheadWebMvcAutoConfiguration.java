package dev.dbbulkhead.autoconfigure.web.servlet;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.web.servlet.BulkheadRejectedExceptionHandler;
import dev.dbbulkhead.web.servlet.BulkheadRejectionFilter;
import dev.dbbulkhead.web.servlet.BulkheadRejectionResolver;
import dev.dbbulkhead.web.servlet.BulkheadRejectionResponder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * HTTP 503 with Retry-After for rejected operations in a Spring MVC application, however the rejection surfaces:
 * from a handler (ahead of the application's catch-all exception handlers) or while a view renders.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({DispatcherServlet.class, ProblemDetail.class})
@ConditionalOnBean(BulkheadRegistry.class)
@EnableConfigurationProperties(BulkheadProperties.class)
public final class BulkheadWebMvcAutoConfiguration {

    /** Boot's error view resolution, absent from a Spring MVC application that does without Boot's MVC support. */
    private static final String ERROR_VIEW_RESOLVER =
            "org.springframework.boot.webmvc.autoconfigure.error.ErrorViewResolver";

    /** Resolves every Retry-After now, so that a bad value fails start-up rather than the first rejection. */
    @Bean
    @ConditionalOnMissingBean
    BulkheadRejectedExceptionHandler bulkheadRejectedExceptionHandler(BulkheadProperties properties) {
        Map<String, Long> byWorkload = new LinkedHashMap<>();
        for (String workload : properties.getWorkloads().keySet()) {
            byWorkload.put(workload, ResolvedSettings.retryAfterSeconds(workload, properties));
        }
        return new BulkheadRejectedExceptionHandler(byWorkload, ResolvedSettings.retryAfterSeconds(null, properties));
    }

    /**
     * Spring MVC's own content negotiation and message converters, looked up at the first rejection; the
     * application's error views for 503 where Boot's error handling is there to render them.
     */
    @Bean
    @ConditionalOnMissingBean
    BulkheadRejectionResponder bulkheadRejectionResponder(BulkheadRejectedExceptionHandler handler,
            ObjectProvider<ContentNegotiationManager> negotiation,
            ObjectProvider<RequestMappingHandlerAdapter> handlerAdapter, ApplicationContext context) {
        return new BulkheadRejectionResponder(handler,
                SingletonSupplier.of(() -> negotiation.getIfUnique(ContentNegotiationManager::new)),
                SingletonSupplier.of(() -> {
                    RequestMappingHandlerAdapter mvc = handlerAdapter.getIfAvailable();
                    return mvc != null ? mvc.getMessageConverters() : List.of();
                }),
                ClassUtils.isPresent(ERROR_VIEW_RESOLVER, context.getClassLoader())
                        ? new ApplicationErrorViews(context) : request -> false);
    }

    @Bean
    @ConditionalOnMissingBean
    BulkheadRejectionResolver bulkheadRejectionResolver(BulkheadRejectionResponder responder,
            ApplicationContext context) {
        return new BulkheadRejectionResolver(responder, context);
    }

    @Bean
    @ConditionalOnMissingBean
    BulkheadRejectionFilter bulkheadRejectionFilter(BulkheadRejectionResponder responder) {
        return new BulkheadRejectionFilter(responder);
    }
}
