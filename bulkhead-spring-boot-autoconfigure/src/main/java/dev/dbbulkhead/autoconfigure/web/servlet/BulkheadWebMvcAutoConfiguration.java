package dev.dbbulkhead.autoconfigure.web.servlet;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.autoconfigure.WorkClassification;
import dev.dbbulkhead.deadline.TimeoutHeaderValues;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.web.servlet.BulkheadRejectedExceptionHandler;
import dev.dbbulkhead.web.servlet.RetryAfter;
import dev.dbbulkhead.web.servlet.BulkheadRejectionFilter;
import dev.dbbulkhead.web.servlet.BulkheadRejectionResolver;
import dev.dbbulkhead.web.servlet.BulkheadRejectionResponder;
import dev.dbbulkhead.web.servlet.BulkheadKeyResolver;
import dev.dbbulkhead.web.servlet.RequestClassFilter;
import dev.dbbulkhead.web.servlet.WorkloadRulesFilter;
import dev.dbbulkhead.web.servlet.RequestDeadlineFilter;
import dev.dbbulkhead.web.servlet.TemplateEngineRefusalLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

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

    /** An HTTP method's name: letters only (GET, POST, a method of the application's own). */
    private static final Pattern HTTP_METHOD = Pattern.compile("[A-Z]+");

    /** Boot's error view resolution, absent from a Spring MVC application that does without Boot's MVC support. */
    private static final String ERROR_VIEW_RESOLVER =
            "org.springframework.boot.webmvc.autoconfigure.error.ErrorViewResolver";

    /** Resolves every Retry-After now, so that a bad value fails start-up rather than the first rejection. */
    @Bean
    @ConditionalOnMissingBean
    BulkheadRejectedExceptionHandler bulkheadRejectedExceptionHandler(BulkheadProperties properties) {
        Map<String, RetryAfter> byWorkload = new LinkedHashMap<>();
        for (String workload : properties.getWorkloads().keySet()) {
            byWorkload.put(workload, retryAfter(workload, properties));
        }
        return new BulkheadRejectedExceptionHandler(byWorkload, retryAfter(null, properties));
    }

    private static RetryAfter retryAfter(@Nullable String workload, BulkheadProperties properties) {
        return new RetryAfter(ResolvedSettings.retryAfterSeconds(workload, properties),
                ResolvedSettings.retryAfterJitterSeconds(workload, properties));
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

    /**
     * The request deadline, when one is configured: headers to read, a budget, or budgets by path. Each value is
     * checked now, so that a bad one fails start-up with the property named.
     */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(RequestDeadlineConfigured.class)
    RequestDeadlineFilter requestDeadlineFilter(BulkheadProperties properties) {
        BulkheadProperties.RequestDeadline settings = properties.getRequestDeadline();
        String prefix = "db.bulkhead.request-deadline";
        List<RequestDeadlineFilter.TimeoutHeader> headers = new ArrayList<>();
        settings.getHeaders().forEach((name, format) -> headers.add(new RequestDeadlineFilter.TimeoutHeader(name,
                format == BulkheadProperties.TimeoutHeaderFormat.GRPC_TIMEOUT ? TimeoutHeaderValues::grpcTimeout
                        : TimeoutHeaderValues::milliseconds)));
        List<RequestDeadlineFilter.PathBudget> paths = new ArrayList<>();
        for (int i = 0; i < settings.getPaths().size(); i++) {
            BulkheadProperties.PathBudget entry = settings.getPaths().get(i);
            String property = prefix + ".paths[" + i + "]";
            paths.add(new RequestDeadlineFilter.PathBudget(pattern(property + ".pattern", entry.getPattern()),
                    positive(property + ".budget", entry.getBudget())));
        }
        Duration budget = settings.getBudget();
        return new RequestDeadlineFilter(headers, paths, budget == null ? null : positive(prefix + ".budget", budget));
    }

    /**
     * The HTTP rules of {@code db.bulkhead.work.rules}, when admission where connections are taken is on and there are
     * any: each request's workload bound to its thread. Each pattern is parsed now, so that a bad one fails start-up
     * with the property named.
     */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(HttpWorkRulesConfigured.class)
    WorkloadRulesFilter workloadRulesFilter(BulkheadProperties properties, BulkheadRejectionResponder responder) {
        List<WorkloadRulesFilter.Rule> rules = new ArrayList<>();
        for (WorkClassification.HttpRule rule : WorkClassification.of(properties).httpRules()) {
            String written = rule.http().trim();
            int space = written.indexOf(' ');
            String method = space < 0 ? null : written.substring(0, space).toUpperCase(Locale.ROOT);
            if (method != null && !HTTP_METHOD.matcher(method).matches()) {
                throw BulkheadConfigurationException.invalidProperty(rule.property(), rule.http(),
                        "a path pattern (/owners/**), or a method and a path pattern (GET /owners/**)");
            }
            rules.add(new WorkloadRulesFilter.Rule(method,
                    pattern(rule.property(), space < 0 ? written : written.substring(space + 1).trim()),
                    rule.workload()));
        }
        return new WorkloadRulesFilter(rules, responder);
    }

    /**
     * Keeps the template engine's stack trace for a refusal raised while a view renders out of the log, when the
     * application renders with Thymeleaf and logs with Logback (Spring Boot's default): each such refusal is answered
     * 503 by {@link BulkheadRejectionFilter} all the same.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.thymeleaf.TemplateEngine", "ch.qos.logback.classic.LoggerContext"})
    static final class TemplateEngineLogConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TemplateEngineRefusalLog dbBulkheadTemplateEngineRefusalLog() {
            return new TemplateEngineRefusalLog();
        }
    }

    /**
     * The request's class, when something gives one: the criticality header, the key from the application's
     * {@link BulkheadKeyResolver} bean, else from the authenticated principal or the key header.
     */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(RequestClassConfigured.class)
    RequestClassFilter requestClassFilter(BulkheadProperties properties, ObjectProvider<BulkheadKeyResolver> keys) {
        BulkheadProperties.RequestClass settings = properties.getRequestClass();
        String keyHeader = settings.getKeyHeader();
        if (settings.isKeyFromPrincipal() && keyHeader != null) {
            // Either the key is the authenticated principal, which a client cannot choose, or a header, which it can.
            throw BulkheadConfigurationException.invalidProperty("db.bulkhead.request-class.key-header", keyHeader,
                    "no key header while db.bulkhead.request-class.key-from-principal is true");
        }
        BulkheadKeyResolver resolver = keys.getIfUnique(() -> settings.isKeyFromPrincipal()
                ? BulkheadKeyResolver.principal() : keyHeader == null ? null
                : BulkheadKeyResolver.header(nonBlank("db.bulkhead.request-class.key-header", keyHeader)));
        String criticalityHeader = settings.getCriticalityHeader();
        return new RequestClassFilter(criticalityHeader == null ? null
                : nonBlank("db.bulkhead.request-class.criticality-header", criticalityHeader), resolver);
    }

    private static String nonBlank(String property, String header) {
        if (header.isBlank()) {
            throw BulkheadConfigurationException.invalidProperty(property, header, "a header name, such as X-Tenant");
        }
        return header;
    }

    private static PathPattern pattern(String property, @Nullable String pattern) {
        if (pattern == null || pattern.isBlank()) {
            throw BulkheadConfigurationException.invalidProperty(property, pattern, "a path pattern such as /reports/**");
        }
        try {
            return PathPatternParser.defaultInstance.parse(pattern);
        } catch (PatternParseException unreadable) {
            throw BulkheadConfigurationException.invalidProperty(property, pattern,
                    "a path pattern such as /reports/** (" + unreadable.getMessage() + ")");
        }
    }

    private static Duration positive(String property, @Nullable Duration budget) {
        if (budget == null || budget.isNegative() || budget.isZero()) {
            throw BulkheadConfigurationException.invalidProperty(property, budget, "a positive duration, such as 2s");
        }
        return budget;
    }
}
