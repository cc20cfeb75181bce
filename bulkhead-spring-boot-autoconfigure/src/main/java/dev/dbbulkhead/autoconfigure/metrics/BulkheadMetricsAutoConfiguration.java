package dev.dbbulkhead.autoconfigure.metrics;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.UngatedWorkAutoConfiguration;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.metrics.BulkheadMeterBinder;
import dev.dbbulkhead.metrics.KeyMeterBinder;
import dev.dbbulkhead.metrics.KeyTallies;
import dev.dbbulkhead.metrics.RetryMeterBinder;
import dev.dbbulkhead.metrics.UngatedConnectionsMeterBinder;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code db.bulkhead.*} meters, ungated connections' included, when the application has a {@link MeterRegistry}. */
@AutoConfiguration(after = {BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class}, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, BulkheadRegistry.class})
public final class BulkheadMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BulkheadMeterBinder bulkheadMeterBinder(MeterRegistry registry) {
        return new BulkheadMeterBinder(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    KeyMeterBinder dbBulkheadKeyMeterBinder(MeterRegistry registry, KeyTallies tallies) {
        return new KeyMeterBinder(registry, tallies);
    }

    @Bean
    @ConditionalOnMissingBean
    RetryMeterBinder dbBulkheadRetryMeterBinder(BulkheadRegistry workloads) {
        return new RetryMeterBinder(workloads);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(WatchedPools.class)
    UngatedConnectionsMeterBinder dbBulkheadUngatedConnectionsMeterBinder(WatchedPools pools) {
        return new UngatedConnectionsMeterBinder(pools);
    }
}
