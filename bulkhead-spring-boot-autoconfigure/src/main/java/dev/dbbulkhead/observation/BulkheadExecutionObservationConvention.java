package dev.dbbulkhead.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the {@link BulkheadObservationDocumentation#EXECUTION execution} observation. A bean of this
 * type replaces {@link DefaultBulkheadExecutionObservationConvention}.
 */
public interface BulkheadExecutionObservationConvention extends ObservationConvention<BulkheadObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof BulkheadObservationContext bulkhead
                && bulkhead.observation() == BulkheadObservationDocumentation.EXECUTION;
    }
}
