package dev.dbbulkhead.autoconfigure.observation;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.observation.BulkheadExecutionObservationConvention;
import dev.dbbulkhead.observation.BulkheadObservations;
import dev.dbbulkhead.observation.BulkheadWaitObservationConvention;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Observations of every admitted operation, when the application has an {@link ObservationRegistry}; a
 * {@link BulkheadWaitObservationConvention} or {@link BulkheadExecutionObservationConvention} bean of the
 * application's replaces the default convention of that observation.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ObservationRegistry.class, BulkheadRegistry.class})
public final class BulkheadObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BulkheadObservations bulkheadObservations(ObservationRegistry registry,
            ObjectProvider<BulkheadWaitObservationConvention> waitConvention,
            ObjectProvider<BulkheadExecutionObservationConvention> executionConvention) {
        return new BulkheadObservations(registry, waitConvention.getIfUnique(), executionConvention.getIfUnique());
    }
}
