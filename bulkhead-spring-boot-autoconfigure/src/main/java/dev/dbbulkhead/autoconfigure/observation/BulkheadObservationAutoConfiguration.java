package dev.dbbulkhead.autoconfigure.observation;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.observation.BulkheadExecutionObservationConvention;
import dev.dbbulkhead.observation.BulkheadMeterObservationHandler;
import dev.dbbulkhead.observation.BulkheadObservations;
import dev.dbbulkhead.observation.BulkheadWaitObservationConvention;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Observations of every admitted operation, for traces, when the application has an {@link ObservationRegistry} and
 * something besides meter handlers may listen to them (a tracer's handlers, a handler bean of the application's, a
 * registry of its own: {@link ListenedToBeyondMetersCondition}); a {@link BulkheadWaitObservationConvention} or
 * {@link BulkheadExecutionObservationConvention} bean of the application's replaces the default convention of that
 * observation. The {@code db.bulkhead.*} meters are the metrics: {@link BulkheadMeterObservationHandler} keeps Boot's
 * meter handlers from timing the observations a second time.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration"})
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ObservationRegistry.class, BulkheadRegistry.class})
@Conditional(ListenedToBeyondMetersCondition.class)
public final class BulkheadObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BulkheadObservations bulkheadObservations(ObservationRegistry registry,
            ObjectProvider<BulkheadWaitObservationConvention> waitConvention,
            ObjectProvider<BulkheadExecutionObservationConvention> executionConvention) {
        return new BulkheadObservations(registry, waitConvention.getIfUnique(), executionConvention.getIfUnique());
    }

    /** Apart, so that the auto-configuration loads without Micrometer's meters on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterObservationHandler.class)
    static final class MeterHandlerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BulkheadMeterObservationHandler bulkheadMeterObservationHandler() {
            return new BulkheadMeterObservationHandler();
        }
    }
}
