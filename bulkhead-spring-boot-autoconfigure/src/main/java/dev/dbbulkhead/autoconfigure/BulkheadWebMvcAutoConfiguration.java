package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.spring.BulkheadRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;
import org.springframework.web.servlet.DispatcherServlet;

/** HTTP 503 with Retry-After for rejected operations, in a Spring MVC application. */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({DispatcherServlet.class, ProblemDetail.class})
@ConditionalOnBean(BulkheadRegistry.class)
@EnableConfigurationProperties(BulkheadProperties.class)
public final class BulkheadWebMvcAutoConfiguration {

    /** Resolves every Retry-After now, so that a bad value fails start-up rather than the first rejection. */
    @Bean
    @ConditionalOnMissingBean
    BulkheadRejectedExceptionHandler bulkheadRejectedExceptionHandler(BulkheadProperties properties) {
        Map<String, Long> byWorkload = new LinkedHashMap<>();
        for (String workload : properties.getWorkloads().keySet()) {
            byWorkload.put(workload, WorkloadSettings.retryAfterSeconds(workload, properties));
        }
        return new BulkheadRejectedExceptionHandler(byWorkload, WorkloadSettings.retryAfterSeconds(null, properties));
    }
}
