package dev.dbbulkhead.autoconfigure.actuate.endpoint;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpointWebExtension;
import dev.dbbulkhead.actuate.endpoint.WorkloadTotals;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.autoconfigure.UngatedWorkAutoConfiguration;
import dev.dbbulkhead.WrittenDurations;
import dev.dbbulkhead.autoconfigure.fleet.BulkheadFleetAutoConfiguration;
import dev.dbbulkhead.autoconfigure.saturation.BulkheadDatabaseSignalsAutoConfiguration;
import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.metrics.KeyTallies;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code dbbulkheads} actuator endpoint, when the actuator is on the class path and the endpoint is exposed. */
@AutoConfiguration(after = {BulkheadAutoConfiguration.class, BulkheadFleetAutoConfiguration.class,
        UngatedWorkAutoConfiguration.class, BulkheadDatabaseSignalsAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(BulkheadRegistry.class)
@ConditionalOnAvailableEndpoint(BulkheadsEndpoint.class)
public final class BulkheadEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    WorkloadTotals bulkheadWorkloadTotals() {
        return new WorkloadTotals();
    }

    @Bean
    @ConditionalOnMissingBean
    BulkheadsEndpoint bulkheadsEndpoint(BulkheadProperties properties, BulkheadRegistry registry, WorkloadTotals totals,
                                        ListableBeanFactory beanFactory, ObjectProvider<ConnectionBudgetCheck> budget,
                                        ObjectProvider<FleetMembership> fleet,
                                        ObjectProvider<AdaptiveLimits> adaptiveLimits,
                                        ObjectProvider<WatchedPools> ungated,
                                        ObjectProvider<KeyTallies> keyTallies,
                                        ObjectProvider<DatabaseSignalsSampling> database) {
        return new BulkheadsEndpoint(registry, totals, beanFactory, budget, fleet,
                adaptiveLimits.getIfAvailable(AdaptiveLimits::new), ungated,
                requestDeadline(properties.getRequestDeadline()), keyTallies.getIfAvailable(KeyTallies::new),
                properties.getEndpoint().getShowKeys() == BulkheadProperties.ShowKeys.RAW
                        ? BulkheadsEndpoint.KeyDisplay.RAW : BulkheadsEndpoint.KeyDisplay.HASHED, database);
    }

    /** What the configuration says of request deadlines; null when requests get none. */
    private static BulkheadsEndpoint.@Nullable RequestDeadlineDescriptor requestDeadline(
            BulkheadProperties.RequestDeadline configured) {
        Duration budget = configured.getBudget();
        if (configured.getHeaders().isEmpty() && budget == null && configured.getPaths().isEmpty()) {
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        configured.getHeaders().forEach((name, format) -> headers.put(name, format.name().toLowerCase(Locale.ROOT)
                .replace('_', '-')));
        Map<String, String> paths = new LinkedHashMap<>();
        for (BulkheadProperties.PathBudget path : configured.getPaths()) {
            paths.put(String.valueOf(path.getPattern()), WrittenDurations.of((Object) path.getBudget()));
        }
        return new BulkheadsEndpoint.RequestDeadlineDescriptor(headers, budget == null ? null : WrittenDurations.of(budget),
                paths);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BulkheadsEndpoint.class)
    BulkheadsEndpoint.RetryAfters dbBulkheadRetryAfters(BulkheadProperties properties) {
        return new BulkheadsEndpoint.RetryAfters() {
            @Override
            public long seconds(String workload) {
                return ResolvedSettings.retryAfterSeconds(workload, properties);
            }

            @Override
            public long jitterSeconds(String workload) {
                return ResolvedSettings.retryAfterJitterSeconds(workload, properties);
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BulkheadsEndpoint.class)
    BulkheadsEndpointWebExtension bulkheadsEndpointWebExtension(BulkheadsEndpoint endpoint) {
        return new BulkheadsEndpointWebExtension(endpoint);
    }
}
